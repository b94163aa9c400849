/*
 * pythag.c: classifies a triangle given by its sides in increasing order, each checked to lie in
 * 1..30000: not a triangle, right-angled (a*a + b*b == c*c), obtuse, equilateral, isosceles or
 * acute.
 *
 * Source: written for evotest, after the right-angled triangle classification of the SBST
 *   literature (e.g. the tritype of Bueno & Jino 2002, examples/tritype.c). It differs from tritype and
 *   triangle: the range 1..30000 and the order a <= b <= c are checked by the program itself, on
 *   unranged ints, and the squares are compared in int arithmetic.
 * Signature: int pythag(int a, int b, int c)
 *   Returns -1 (a side outside 1..30000), -2 (not a <= b <= c), 0 (a + b <= c), 1 right,
 *   2 obtuse, 3 equilateral, 4 isosceles, 5 acute.
 * Inputs and ranges: a, b and c over the whole int range. Past the range check the sums and
 *   squares stay below 2 * 30000^2 = 1.8e9 < INT_MAX, so the int arithmetic cannot overflow.
 * evotest options: none.
 *
 * Branch sites (evotest sites): 14 sites, 28 outcomes (a br or select site has outcomes
 *   [true, false]):
 *   line 58:11   a < 1
 *   line 58:20   a > 30000
 *   line 58:33   b < 1
 *   line 58:42   b > 30000
 *   line 58:55   c < 1
 *   line 58:64   c > 30000
 *   line 60:11   a > b
 *   line 60:20   b > c
 *   line 62:15   a + b <= c
 *   line 64:23   (a * a) + (b * b) == c * c
 *   line 66:23   (a * a) + (b * b) < c * c
 *   line 68:11   a == c
 *   line 70:11   a == b
 *   line 70:21   b == c
 * Feasible outcomes: 28 of 28. None is infeasible.
 *   Examples: (2, 1, 3) → -2 by `a > b`, (1, 3, 2) by `b > c`; (1, 2, 3) → 0; (3, 4, 5) → 1;
 *   (2, 3, 4) → 2; (5, 5, 5) → 3; (5, 5, 6) → 4 by `a == b`, (4, 6, 6) by `b == c`;
 *   (4, 5, 6) → 5. For uniform ints the range check alone passes with probability
 *   (30000 / 2^32)^3, about 3.4e-16, and the ordering with 1/6 of the rest; the right angle is the
 *   rarest outcome past them: 42,686 ordered Pythagorean triples have c <= 30000, against
 *   about 30000^3 / 6 ordered inputs in range.
 * Checked by: examples/numeric/check/check.sh pythag (driver pythag_check.c): clang-22 coverage
 *   build, llvm-cov-22 show --show-branches=count, over every (a, b, c) in [-2, 60]^3, every
 *   Pythagorean triple with c <= 30000 (Euclid's formula over all m > n, with multiples), all
 *   triples of 9 edge values (INT_MIN, -1, 0, 1, 2, 29999, 30000, 30001, INT_MAX) and 9 million
 *   random inputs (whole range, within 1..30000, and ordered within 1..30000). Every outcome
 *   was taken. Results were compared with an independent oracle in long long.
 */
#define OUT_OF_RANGE (-1)
#define NOT_ORDERED (-2)
#define NOT_A_TRIANGLE 0
#define RIGHT 1
#define OBTUSE 2
#define EQUILATERAL 3
#define ISOSCELES 4
#define ACUTE 5

int pythag(int a, int b, int c)
{
    if (a < 1 || a > 30000 || b < 1 || b > 30000 || c < 1 || c > 30000)
        return OUT_OF_RANGE;
    if (a > b || b > c)
        return NOT_ORDERED;
    if (a + b <= c)
        return NOT_A_TRIANGLE;
    if (a * a + b * b == c * c)
        return RIGHT;
    if (a * a + b * b < c * c)
        return OBTUSE;
    if (a == c)
        return EQUILATERAL;
    if (a == b || b == c)
        return ISOSCELES;
    return ACUTE;
}
