/*
 * gcdrel.c: how two integers are related through their greatest common divisor (Euclid's
 * algorithm): coprime, equal in magnitude, one dividing the other, or sharing a factor, with
 * or without a least common multiple that fits in an int.
 *
 * Source: Euclid's gcd is a classic subject of search-based and symbolic test generation; this
 *   classification around it was written for evotest.
 * Signature: int gcdrel(int a, int b)
 *   Returns -1 for gcd(0, 0), 1 coprime, 2 |a| == |b|, 3 one divides the other (0 included),
 *   4 a common factor and lcm(|a|, |b|) > INT_MAX, 5 a common factor and the lcm fits.
 * Inputs and ranges: a and b over the whole int range. Magnitudes are taken in long long, so
 *   |INT_MIN| and the lcm (below 2^62) do not overflow.
 * evotest options: none.
 *
 * Branch sites (evotest sites): 11 sites, 22 outcomes (a br or select site has outcomes
 *   [true, false]):
 *   line 50:11   a == 0
 *   line 50:21   b == 0
 *   line 53:12   ua < 0
 *   line 55:12   ub < 0
 *   line 58:14   y != 0                      (Euclid loop)
 *   line 63:11   x == 1                      (coprime)
 *   line 65:11   x == ua                     (|a| == |b|)
 *   line 65:22   x == ub                     (|a| == |b|)
 *   line 67:11   x == ua                     (one divides)
 *   line 67:22   x == ub                     (one divides)
 *   line 69:21   (ua / x) * ub > 2147483647  (the lcm)
 * Feasible outcomes: 22 of 22. None is infeasible.
 *   Examples: (0, 0) → -1; (7, 5) → 1; (6, -6) → 2; (3, 6) and (0, 5) → 3; (4, 6) → 5;
 *   (100000, 100002) → 4 (gcd 2, lcm 5,000,100,000). For uniform inputs the rare outcomes are
 *   `a == 0` → true (2^-32), `x == ub` → true in `x == ua && x == ub` (|a| == |b|, 2^-31) and
 *   `x == ua` → true in the `||` (|a| divides |b|); `ua / x * ub > INT_MAX` → false needs small
 *   operands with a common factor.
 * Checked by: examples/numeric/check/check.sh gcdrel (driver gcdrel_check.c): clang-22 coverage
 *   build, llvm-cov-22 show --show-branches=count, over every (a, b) in [-300, 300]^2, all pairs
 *   of 11 hand-picked values (INT_MIN, INT_MIN + 1, INT_MAX, 0, +-1, 2, 65536, 100000, ...),
 *   2 million uniform random pairs and 2 million multiples of a random common factor. Every
 *   outcome was taken. Results were compared with an independent oracle (Stein's binary gcd and
 *   the classification restated in unsigned long long).
 */
#define GCD_UNDEFINED (-1) /* gcd(0, 0) */
#define GCD_COPRIME 1
#define GCD_SAME_MAGNITUDE 2 /* |a| == |b| */
#define GCD_DIVIDES 3        /* one divides the other */
#define GCD_LCM_TOO_BIG 4    /* common factor, lcm beyond int */
#define GCD_COMMON_FACTOR 5

int gcdrel(int a, int b)
{
    if (a == 0 && b == 0)
        return GCD_UNDEFINED;
    long long ua = a, ub = b;
    if (ua < 0)
        ua = -ua;
    if (ub < 0)
        ub = -ub;
    long long x = ua, y = ub;
    while (y != 0) { /* Euclid */
        long long t = x % y;
        x = y;
        y = t;
    }
    if (x == 1)
        return GCD_COPRIME;
    if (x == ua && x == ub)
        return GCD_SAME_MAGNITUDE;
    if (x == ua || x == ub)
        return GCD_DIVIDES;
    if (ua / x * ub > 2147483647LL)
        return GCD_LCM_TOO_BIG;
    return GCD_COMMON_FACTOR;
}
