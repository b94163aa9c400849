/*
 * rectangle.c: where a point lies with respect to the square [0, 10] x [0, 10] and the
 * quadrants: on the square's diagonal, on its edge, inside it, or outside it in a quadrant or on
 * an axis. NaN coordinates are detected with x != x.
 *
 * Source: written for evotest, after the point-in-rectangle and quadrant classifications used as
 *   geometry subjects in search-based test data generation.
 * Signature: int rectangle(double x, double y)
 *   Returns -1 (a NaN), 0 diagonal (x == y inside), 1 edge, 2 inside, 3..6 quadrants I..IV,
 *   7/8 the positive/negative x axis, 9/10 the positive/negative y axis (outside the square).
 * Inputs and ranges: x and y over the whole double range, with the infinities and NaN.
 * evotest options: none.
 *
 * Branch sites (evotest sites): 18 sites, 36 outcomes (a br or select site has outcomes
 *   [true, false]):
 *   line 64:11   x != x                      (NaN)
 *   line 64:21   y != y                      (NaN)
 *   line 66:11   x >= 0.0
 *   line 66:23   x <= 10.0
 *   line 66:36   y >= 0.0
 *   line 66:48   y <= 10.0
 *   line 67:15   x == y                      (diagonal)
 *   line 69:15   x == 0.0                    (edges)
 *   line 69:27   x == 10.0
 *   line 69:40   y == 0.0
 *   line 69:52   y == 10.0
 *   line 73:11   x > 0.0                     (outside the square)
 *   line 74:15   y > 0.0
 *   line 76:15   y < 0.0
 *   line 80:11   x < 0.0
 *   line 81:15   y > 0.0
 *   line 83:15   y < 0.0
 *   line 87:11   y > 0.0                     (x is +-0)
 * Feasible outcomes: 36 of 36. None is infeasible.
 *   Needing exact values: `x != x` → true and `y != y` → true need NaN; `x == y` → true a point
 *   on the diagonal; `x == 0.0`, `x == 10.0`, `y == 0.0`, `y == 10.0` → true a point on an edge
 *   (e.g. (0, 5), (10, 5), (5, 0), (5, 10)); `y < 0.0` → false after `y > 0.0` → false needs
 *   y == 0 (or -0) with x > 10 or x < 0 (the axis outcomes, e.g. (11, 0) and (-1, 0)); the
 *   last site needs x == +-0 with y outside [0, 10], e.g. (0, 11) and (0, -1). -0.0 counts as 0
 *   throughout.
 * Checked by: examples/numeric/check/check.sh rectangle (driver rectangle_check.c): clang-22
 *   coverage build, llvm-cov-22 show --show-branches=count, over the quarter-step grid
 *   [-11, 21]^2, all pairs of 15 special values (NaN, +-inf, +-0, 10, 10 +- 1 ulp, +-1e-300,
 *   +-1e308, the smallest subnormal, 5), each special value against the grid, and 6 million
 *   random inputs (random bit patterns and uniform in [-20, 30]). Every outcome was taken.
 *   Results were compared with an independent oracle (a closed-box test, then a table indexed
 *   by the signs of x and y).
 */
#define R_NAN (-1)
#define R_DIAGONAL 0 /* inside the square, on the diagonal x == y */
#define R_EDGE 1
#define R_INSIDE 2
#define R_Q1 3
#define R_Q2 4
#define R_Q3 5
#define R_Q4 6
#define R_POS_X_AXIS 7
#define R_NEG_X_AXIS 8
#define R_POS_Y_AXIS 9
#define R_NEG_Y_AXIS 10

int rectangle(double x, double y)
{
    if (x != x || y != y)
        return R_NAN;
    if (x >= 0.0 && x <= 10.0 && y >= 0.0 && y <= 10.0) {
        if (x == y)
            return R_DIAGONAL;
        if (x == 0.0 || x == 10.0 || y == 0.0 || y == 10.0)
            return R_EDGE;
        return R_INSIDE;
    }
    if (x > 0.0) {
        if (y > 0.0)
            return R_Q1;
        if (y < 0.0)
            return R_Q4;
        return R_POS_X_AXIS;
    }
    if (x < 0.0) {
        if (y > 0.0)
            return R_Q2;
        if (y < 0.0)
            return R_Q3;
        return R_NEG_X_AXIS;
    }
    if (y > 0.0) /* x is 0 or -0 here, and y outside [0, 10] */
        return R_POS_Y_AXIS;
    return R_NEG_Y_AXIS;
}
