/*
 * fclamp.c: clamping a double to an interval [lo, hi], with the IEEE special cases spelled out:
 * NaN bounds or x (isnan), an empty interval, the whole line [-INFINITY, INFINITY], infinite x
 * (x == INFINITY, x == -INFINITY), x on a bound, and half-lines (isinf of a bound).
 *
 * Source: written for evotest (comparisons with isinf, isnan, INFINITY and -INFINITY from
 *   <math.h>, whose constants once broke evotest's metadata: tests/nonfinite.rs).
 * Signature: int fclamp(double x, double lo, double hi)
 *   Returns -2 (a NaN bound), -1 (lo > hi), 0 (x is NaN), 1 (the whole line), 2 inside,
 *   3 below lo, 4 above hi, 5 on a bound, 6 inside a half-line (one bound infinite).
 * Inputs and ranges: x, lo and hi over the whole double range, with the infinities and NaN.
 * evotest options: none.
 * At -O0 isnan() is llvm.is.fpclass(x, 3), printed `is(lo, 3)`: a boolean site (distance 0 or
 * 1). glibc defines isinf() as __builtin_isinf_sign(), which clang expands into two selects
 * (`lo < 0`, `fabs(lo) == inf`) and a branch on the result; the ?: with constant arms are selects.
 *
 * Branch sites (evotest sites): 20 sites, 40 outcomes (a br or select site has outcomes
 *   [true, false]):
 *   line 72:9    is(lo, 3)                   (isnan)
 *   line 72:22   is(hi, 3)                   (isnan)
 *   line 74:12   lo > hi
 *   line 76:9    is(x, 3)                    (isnan)
 *   line 78:12   lo == -inf
 *   line 78:31   hi == inf
 *   line 80:11   x == inf
 *   line 81:19   hi == inf                   (a select)
 *   line 82:11   x == -inf
 *   line 83:19   lo == -inf                  (a select)
 *   line 84:11   x < lo
 *   line 86:11   x > hi
 *   line 88:11   x == lo
 *   line 88:22   x == hi
 *   line 90:9    lo < 0                      (a select) (isinf(lo))
 *   line 90:9    fabs(lo) == inf             (a select) (isinf(lo))
 *   line 90:9    ((fabs(lo) == inf) ? ((lo < 0) ? -1 : 1) : 0) != 0 (isinf(lo))
 *   line 90:22   hi < 0                      (a select) (isinf(hi))
 *   line 90:22   fabs(hi) == inf             (a select) (isinf(hi))
 *   line 90:22   ((fabs(hi) == inf) ? ((hi < 0) ? -1 : 1) : 0) != 0 (isinf(hi))
 * Feasible outcomes: 40 of 40. None is infeasible.
 *   Examples: (0, NaN, 1) → -2 (`is(lo, 3)`), (0, 0, NaN) → -2; (0, 2, 1) → -1; (NaN, 0, 1) → 0;
 *   (0, -inf, inf) → 1; (inf, 0, inf) → 6 and (inf, 0, 1) → 4 (the select on `hi == inf`);
 *   (-inf, -inf, 1) → 6 and (-inf, 0, 1) → 3; (-1, 0, 1) → 3; (2, 0, 1) → 4; (0, 0, 1) and
 *   (1, 0, 1) → 5; (0, -inf, 1) → 6 through `fabs(lo) == inf` → true (so lo < 0 → true);
 *   (0, -1, inf) → 6 through `fabs(hi) == inf` → true; (-2, -3, -1) → 2 with `hi < 0` → true;
 *   (0.5, 0, 1) → 2.
 *   The selects inside isinf() run whenever x is finite and strictly inside [lo, hi]; lo == +inf
 *   cannot reach them (then hi == +inf and x could not be finite inside), so `lo < 0` → false
 *   needs lo >= 0 finite; `fabs(hi) == inf` is evaluated only when lo is finite.
 * Checked by: examples/numeric/check/check.sh fclamp (driver fclamp_check.c): clang-22 coverage
 *   build, llvm-cov-22 show --show-branches=count, over all triples of 13 special values (NaN,
 *   +-inf, +-1e308, -2, -1, +-0, 1e-310, 1, 2, 3) and 12 million random inputs (random bit
 *   patterns, intervals in [-10, 20], special bounds with a finite x, and so on). Every outcome
 *   llvm-cov reports (the br sites and the ?: conditions, isinf() as one condition) was taken;
 *   the driver counted both outcomes of each of the four selects inside isinf() over the inputs
 *   that reach them. Results were compared with an independent oracle (the interval tests in
 *   another order).
 */
#include <math.h>

#define CL_BAD_BOUND (-2) /* a bound is NaN */
#define CL_EMPTY (-1)     /* lo > hi */
#define CL_NAN 0          /* x is NaN */
#define CL_UNBOUNDED 1    /* [-inf, +inf]: x is kept */
#define CL_INSIDE 2
#define CL_BELOW 3        /* x < lo: clamped up to lo */
#define CL_ABOVE 4        /* x > hi: clamped down to hi */
#define CL_ON_BOUND 5
#define CL_INSIDE_HALF 6  /* inside a half-line (one bound infinite) */

int fclamp(double x, double lo, double hi)
{
    if (isnan(lo) || isnan(hi))
        return CL_BAD_BOUND;
    if (lo > hi)
        return CL_EMPTY;
    if (isnan(x))
        return CL_NAN;
    if (lo == -INFINITY && hi == INFINITY)
        return CL_UNBOUNDED;
    if (x == INFINITY)
        return hi == INFINITY ? CL_INSIDE_HALF : CL_ABOVE;
    if (x == -INFINITY)
        return lo == -INFINITY ? CL_INSIDE_HALF : CL_BELOW;
    if (x < lo)
        return CL_BELOW;
    if (x > hi)
        return CL_ABOVE;
    if (x == lo || x == hi)
        return CL_ON_BOUND;
    if (isinf(lo) || isinf(hi))
        return CL_INSIDE_HALF;
    return CL_INSIDE;
}
