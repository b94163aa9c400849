/*
 * expint.c: the exponential integral E_n(x), with the control structure of the routine in
 * Numerical Recipes in C (section 6.3), written afresh for evotest. The original is copyrighted;
 * this is a new implementation of the same algorithm: Lentz's continued fraction for x > 1, the
 * power series (with the digamma term when i == n - 1) otherwise. Error exits return the
 * sentinel EXPINT_ERROR instead of calling nrerror()/exit().
 *
 * Inputs: n (int), x (float).  Output: E_n(x), or EXPINT_ERROR.
 * Used as a subject by Bueno & Jino (2002, Table 2) and many SBST studies.
 *
 * Branch sites (-O0: each atomic condition of && / || is its own site), 15 sites, 30 outcomes:
 *   line 43  n < 0        line 43  x < 0        line 43  x == 0
 *   line 43  n == 0       line 43  n == 1
 *   line 45  n == 0       line 47  x == 0       line 49  x > 1
 *   line 52  i <= MAXIT   (continued-fraction loop)
 *   line 59  |del - 1| < EPS
 *   line 65  nm1 != 0     (the ?:)
 *   line 67  i <= MAXIT   (series loop)
 *   line 70  i != nm1     line 74 ii <= nm1
 *   line 79 |del| < |ans| * EPS
 *
 * Feasibility. With x ranging over all floats (evotest's default: the type's whole range,
 * including +-inf and NaN), all 30 outcomes are feasible. Two of them need extreme x:
 *   - line 52 false ("continued fraction failed"): x >= 0x1.028628p+126 (about 8.59e37, where
 *     1/b underflows into the subnormals and del never settles) or x = +inf (del is NaN);
 *   - line 67 false ("series failed"): only x = NaN (it skips every earlier test; del is NaN).
 * Both were checked by brute force: a strided scan of all floats above 1 for n in {1, 2, 3,
 * 10, 100, 1000, 1e6, INT_MAX} (the first failing x is the same for every n), and of all
 * floats in (0, 1] for n = 1..58 and six larger n (no series failure). So with a finite range
 * such as --range x=0..1e30, those two outcomes are infeasible and the other 28 feasible.
 */
#include <math.h>

#define MAXIT 100
#define EULER 0.5772156649
#define FPMIN 1.0e-30
#define EPS 1.0e-7
#define EXPINT_ERROR (-1.0f)

float expint(int n, float x)
{
    int nm1 = n - 1;
    if (n < 0 || x < 0.0 || (x == 0.0 && (n == 0 || n == 1)))
        return EXPINT_ERROR; /* bad arguments */
    if (n == 0)
        return expf(-x) / x; /* E_0(x) = exp(-x) / x */
    if (x == 0.0)
        return 1.0f / nm1; /* E_n(0) = 1 / (n - 1) */
    if (x > 1.0) {
        /* Lentz's method for the continued fraction */
        float b = x + (float)n, c = 1.0 / FPMIN, d = 1.0f / b, h = d;
        for (int i = 1; i <= MAXIT; i++) {
            float a = -(float)i * ((float)nm1 + (float)i);
            b += 2.0f;
            d = 1.0f / (a * d + b);
            c = b + a / c;
            float del = c * d;
            h *= del;
            if (fabs(del - 1.0) < EPS)
                return h * expf(-x);
        }
        return EXPINT_ERROR; /* continued fraction failed */
    }
    /* power series */
    float ans = (nm1 != 0 ? 1.0f / nm1 : -logf(x) - EULER);
    float fact = 1.0f;
    for (int i = 1; i <= MAXIT; i++) {
        float del;
        fact *= -x / i;
        if (i != nm1) {
            del = -fact / (i - nm1);
        } else {
            float psi = -EULER;
            for (int ii = 1; ii <= nm1; ii++)
                psi += 1.0f / ii;
            del = fact * (-logf(x) + psi);
        }
        ans += del;
        if (fabs(del) < fabs(ans) * EPS)
            return ans;
    }
    return EXPINT_ERROR; /* series failed */
}
