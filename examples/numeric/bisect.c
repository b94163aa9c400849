/*
 * bisect.c: the bisection method for the real cube root of c in [lo, hi]: argument checks,
 * the bracket test (f(lo) and f(hi) of opposite signs), then at most 100 halvings until the
 * midpoint is a root or the bracket is narrower than 1e-9.
 *
 * Source: the bisection method, a classic numerical subject (e.g. the control structure of
 *   rtbis in Numerical Recipes, section 9.1); written afresh for evotest, no listing copied.
 * Signature: int bisect(double lo, double hi, double c)
 *   Returns the number of halvings k (1..100) at which it stopped, 0 when f(lo) or f(hi) is 0,
 *   -1 for a NaN argument, -2 when lo >= hi, -3 when f(lo) and f(hi) have the same sign (a NaN
 *   counts as non-negative) and -4 when 100 halvings did not converge.
 * Inputs and ranges: lo, hi and c over the whole double range, with the infinities and NaN
 *   (cubes may overflow to +-inf and differences of infinities give NaN; no trap, no UB).
 * evotest options: none.
 *
 * Branch sites (evotest sites): 11 sites, 22 outcomes (a br or select site has outcomes
 *   [true, false]):
 *   line 54:12   lo != lo
 *   line 54:24   hi != hi
 *   line 54:35   c != c
 *   line 56:12   lo >= hi
 *   line 59:13   flo == 0.0
 *   line 59:27   fhi == 0.0
 *   line 61:21   flo < 0.0 == fhi < 0.0      (the bracket test)
 *   line 63:23   k <= 100                    (halving loop)
 *   line 66:16   fm == 0.0
 *   line 66:34   hi - lo < 1e-9
 *   line 68:24   fm < 0.0 == flo < 0.0       (keep the half with the root)
 * Feasible outcomes: 22 of 22. None is infeasible.
 *   Examples: (NaN, 1, 1) → -1; (1, 1, 0) → -2; (2, 3, 8) → 0 by `flo == 0.0`, (1, 2, 8) by
 *   `fhi == 0.0`; (1, 2, 27) → -3; (1, 2, 2) → 31 by the width test; (0, 8, 8) → 2 by
 *   `fm == 0.0` (the midpoint 2); (-1e30, 1e30, 1) → -4 (after 100 halvings the bracket is
 *   still about 3 wide: the loop's `k <= 100` → false).
 * Checked by: examples/numeric/check/check.sh bisect (driver bisect_check.c): clang-22 coverage
 *   build, llvm-cov-22 show --show-branches=count, over all triples of 15 special values (NaN,
 *   +-inf, +-0, +-1, 2, +-8, 27, 1e-300, +-1e300, 1e100) and 10 million random inputs (random
 *   bit patterns; brackets in [-100, 100], in [-1e30, 1e30], narrower than 3e-9, and of small
 *   integers). Every outcome was taken. The codes -1..-3 and 0 were compared with an
 *   independent restatement, and every positive result with moderate inputs was checked
 *   against cbrt(c): the root lies in the final bracket, which is narrower than the tolerance
 *   or has the root at its midpoint.
 */
#define B_NAN (-1)         /* a NaN argument */
#define B_EMPTY (-2)       /* lo >= hi */
#define B_NO_BRACKET (-3)  /* f(lo) and f(hi) have the same sign */
#define B_NO_CONVERGENCE (-4)
#define MAXHALVINGS 100
#define TOL 1e-9

/* Halvings needed to bracket the real cube root of c within TOL by bisection of [lo, hi] on
 * f(x) = x^3 - c; 0 when an end point is a root. */
int bisect(double lo, double hi, double c)
{
    if (lo != lo || hi != hi || c != c)
        return B_NAN;
    if (lo >= hi)
        return B_EMPTY;
    double flo = lo * lo * lo - c, fhi = hi * hi * hi - c;
    if (flo == 0.0 || fhi == 0.0)
        return 0;
    if ((flo < 0.0) == (fhi < 0.0))
        return B_NO_BRACKET;
    for (int k = 1; k <= MAXHALVINGS; k++) {
        double mid = lo + (hi - lo) / 2.0;
        double fm = mid * mid * mid - c;
        if (fm == 0.0 || hi - lo < TOL)
            return k;
        if ((fm < 0.0) == (flo < 0.0)) {
            lo = mid;
            flo = fm;
        } else {
            hi = mid;
        }
    }
    return B_NO_CONVERGENCE;
}
