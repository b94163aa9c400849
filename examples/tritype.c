/*
 * tritype.c: triangle classification with the right-angled case, and the area. Written afresh
 * for evotest from the description in Bueno & Jino (the paper gives no listing).
 *
 * Source: Bueno & Jino (2002), §9.1 and Table 2. The paper says: three integer side
 *   lengths; classifies the triangle and computes its area. The right-angled path needs
 *   (a >= b) and (b >= c) and (a < b + c) and (a != b) and (b != c) and (a^2 = b^2 + c^2). So the
 *   sides are expected in non-increasing order and are not sorted by the program. Table 2 gives
 *   22 nodes and cyclomatic complexity 9. This version has 8 atomic conditions (cyclomatic
 *   complexity 9).
 * Signature: double tritype(int a, int b, int c)
 *   Returns kind * 10000 + area. The kinds are INVALID 0 (sides not in non-increasing order),
 *   NOT_A_TRIANGLE 1, EQUILATERAL 2, ISOSCELES 3, RIGHT_ANGLED 4 and SCALENE 5. The area is 0 for
 *   kinds 0 and 1, b*c/2 for right-angled triangles and Heron's formula otherwise. It is below
 *   10000 for sides up to 150.
 * Inputs and ranges: the paper does not give ranges. We chose 1..100 for each side. The paper's
 *   random search needed 21,566 executions for the right-angled path. 1..100 has 52 right-angled
 *   inputs in 10^6 (about 19,200 expected executions), which fits. The arithmetic is in long long
 *   and double, so no int input overflows.
 * evotest options: --range a=1..100 --range b=1..100 --range c=1..100
 *
 * Branch sites (evotest sites): 8 sites, 16 outcomes:
 *   line 47:11  a >= b
 *   line 47:21  b >= c
 *   line 49:16  la < lb + lc
 *   line 54:19  a == b          (equilateral test)
 *   line 54:29  b == c
 *   line 57:26  a == b          (isosceles test)
 *   line 57:36  b == c
 *   line 60:32  la * la == lb * lb + lc * lc   (right-angled)
 * Feasible outcomes: 16 of 16. No outcome is infeasible. The hardest is line 60:32 → true
 *   (right-angled), e.g. (5, 4, 3), which returns 40006. Others: (3, 1, 1) is not a triangle;
 *   (1, 1, 1) is equilateral; (2, 2, 1) takes line 54:29 → false and line 57:26 → true;
 *   (3, 2, 2) takes line 57:36 → true; (1, 2, 1) takes line 47:11 → false; (2, 1, 2) takes
 *   line 47:21 → false.
 * Checked by: an llvm-cov branch count over every input in 1..100^3 (10^6). Every outcome was
 *   taken; the right-angled path was taken 52 times. Every classification and area was checked
 *   against an independent rewrite. ASan and UBSan were clean.
 */
#include <math.h>

enum { INVALID = 0, NOT_A_TRIANGLE = 1, EQUILATERAL = 2, ISOSCELES = 3, RIGHT_ANGLED = 4, SCALENE = 5 };

/* Returns kind * 10000 + area (the area is below 10000 for sides up to 150). */
double tritype(int a, int b, int c)
{
    if (a >= b && b >= c) { /* sides must come in non-increasing order */
        long long la = a, lb = b, lc = c;
        if (la < lb + lc) { /* with a >= b >= c this also forces c > 0 */
            int kind;
            double area;
            double s = ((double)a + b + c) / 2.0;
            double heron = sqrt(s * (s - a) * (s - b) * (s - c));
            if (a == b && b == c) {
                kind = EQUILATERAL;
                area = heron;
            } else if (a == b || b == c) {
                kind = ISOSCELES;
                area = heron;
            } else if (la * la == lb * lb + lc * lc) {
                kind = RIGHT_ANGLED;
                area = (double)b * c / 2.0;
            } else {
                kind = SCALENE;
                area = heron;
            }
            return kind * 10000.0 + area;
        }
        return NOT_A_TRIANGLE * 10000.0;
    }
    return INVALID;
}
