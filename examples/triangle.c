/*
 * triangle.c: Myers-style triangle classification, written afresh for evotest.
 *
 * Source: the classic SBST example (Myers, "The Art of Software Testing", 1979), in the form
 * used throughout the search-based testing literature (e.g. McMinn's survey, 2004).
 *
 * Inputs: three side lengths a, b, c (int, any value).
 * Output: INVALID (a side <= 0), NOT_A_TRIANGLE (triangle inequality fails), EQUILATERAL,
 *         ISOSCELES or SCALENE.
 *
 * Branch sites (compiled at -O0, every atomic condition of && / || is its own site):
 *   line 30  a <= 0            line 30  b <= 0            line 30  c <= 0
 *   line 33  a + b <= c        line 33  a + c <= b        line 33  b + c <= a
 *   line 35  a == b            line 35  b == c
 *   line 37  a == b            line 37  b == c            line 37  a == c
 * That is 11 sites, 22 branch outcomes, all feasible: the sums are computed in long long,
 * so no overflow makes an outcome unreachable.
 */

enum triangle_kind {
    INVALID = 0,
    NOT_A_TRIANGLE = 1,
    EQUILATERAL = 2,
    ISOSCELES = 3,
    SCALENE = 4,
};

int triangle(int a, int b, int c)
{
    if (a <= 0 || b <= 0 || c <= 0)
        return INVALID;
    long long sa = a, sb = b, sc = c;
    if (sa + sb <= sc || sa + sc <= sb || sb + sc <= sa)
        return NOT_A_TRIANGLE;
    if (a == b && b == c)
        return EQUILATERAL;
    if (a == b || b == c || a == c)
        return ISOSCELES;
    return SCALENE;
}
