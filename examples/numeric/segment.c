/*
 * segment.c: classifies the line through (x1, y1) and (x2, y2): a point, vertical (x1 == x2),
 * horizontal, a slope that is zero, infinite or NaN in double precision, or else whether it
 * crosses the x axis inside [0, 10], by the segment itself or only by its extension.
 *
 * Source: written for evotest, after the line and segment geometry subjects of search-based
 *   test data generation (equality of two double inputs, comparisons with small constants).
 * Signature: int segment(double x1, double y1, double x2, double y2)
 *   Returns -1 (a NaN coordinate), 0 a point, 1 vertical, 2 horizontal, 3 a degenerate slope,
 *   4 the segment meets the axis in [0, 10], 5 only the line does, 6 the line misses [0, 10].
 * Inputs and ranges: all four over the whole double range, with the infinities and NaN.
 * evotest options: none.
 * isnan() lowers at -O0 to llvm.is.fpclass(x, 3), printed `is(x1, 3)`: a boolean site whose
 * distance is 0 or 1, so nothing guides the search to NaN.
 *
 * Branch sites (evotest sites): 16 sites, 32 outcomes (a br or select site has outcomes
 *   [true, false]):
 *   line 64:9    is(x1, 3)                   (isnan)
 *   line 64:22   is(y1, 3)                   (isnan)
 *   line 64:35   is(x2, 3)                   (isnan)
 *   line 64:48   is(y2, 3)                   (isnan)
 *   line 66:12   x1 == x2
 *   line 67:16   y1 == y2
 *   line 71:12   y1 == y2
 *   line 74:11   m != m                      (a NaN slope)
 *   line 74:21   m == 0.0
 *   line 74:39   fabs(m) == inf
 *   line 77:12   xi >= 0.0                   (the x-axis crossing)
 *   line 77:25   xi <= 10.0
 *   line 78:17   y1 <= 0.0
 *   line 78:30   y2 >= 0.0
 *   line 78:45   y1 >= 0.0
 *   line 78:58   y2 <= 0.0
 * Feasible outcomes: 32 of 32. None is infeasible.
 *   The degenerate slopes need extreme values: `m != m` → true e.g. (-inf, -inf, inf, inf)
 *   (inf / inf); `m == 0.0` → true e.g. (0, 1e-300, 1e300, 2e-300) (the quotient underflows) or
 *   x2 - x1 infinite; `fabs(m) == inf` → true e.g. (0, -1e300, 1e-300, 1e300). The crossing
 *   conditions: (1, -1, 2, 1) → 4 (crossing 1.5, y1 <= 0 <= y2), (6, 1, 7, 2) → 5 (crossing 5,
 *   both above), (1, 1, 2, -1) → 4 by the second disjunct, (1, -1, 2, -2) → 5 with
 *   `y1 >= 0.0` → false, (0, 0, 5, -1) → 4 with y1 == 0 taking `y1 <= 0.0` → true and
 *   `y2 >= 0.0` → false, (20, 1, 21, 2) → 6.
 * Checked by: examples/numeric/check/check.sh segment (driver segment_check.c): clang-22
 *   coverage build, llvm-cov-22 show --show-branches=count, over a grid of small integer
 *   coordinates (x1 in -6..14 by 2, y1 and y2 in -6..6, x2 in -6..14; 39,039 inputs), all
 *   4-tuples of 14 special values (NaN, +-inf, +-0, +-1, 5, 10, 1e-300, +-1e300, 1e-320,
 *   DBL_MAX) and 4 million random inputs (random bit patterns, and uniform). Every outcome was
 *   taken. On the integer grid the result was compared with an exact rational oracle (the
 *   crossing by cross-multiplication; inputs whose exact crossing is 0 or 10 skipped); on the
 *   rest the NaN result was checked.
 */
#include <math.h>

#define SEG_NAN (-1)
#define SEG_POINT 0
#define SEG_VERTICAL 1
#define SEG_HORIZONTAL 2
#define SEG_BAD_SLOPE 3 /* the slope is 0, infinite or NaN in double precision */
#define SEG_HITS 4      /* the segment meets the x axis within [0, 10] */
#define SEG_LINE_HITS 5 /* only its extension does */
#define SEG_MISSES 6

int segment(double x1, double y1, double x2, double y2)
{
    if (isnan(x1) || isnan(y1) || isnan(x2) || isnan(y2))
        return SEG_NAN;
    if (x1 == x2) {
        if (y1 == y2)
            return SEG_POINT;
        return SEG_VERTICAL;
    }
    if (y1 == y2)
        return SEG_HORIZONTAL;
    double m = (y2 - y1) / (x2 - x1);
    if (m != m || m == 0.0 || fabs(m) == INFINITY)
        return SEG_BAD_SLOPE;
    double xi = x1 - y1 / m; /* where the line crosses y = 0 */
    if (xi >= 0.0 && xi <= 10.0) {
        if ((y1 <= 0.0 && y2 >= 0.0) || (y1 >= 0.0 && y2 <= 0.0))
            return SEG_HITS;
        return SEG_LINE_HITS;
    }
    return SEG_MISSES;
}
