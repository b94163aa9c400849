/*
 * remainder.c: the integer remainder a % b by repeated subtraction, with a separate loop for each
 * combination of signs. Written afresh for evotest in the style of the "remainder" subject of
 * the SBST literature; no existing listing was copied.
 *
 * Source: a classic SBST subject, the EvoSuite/NCS-style "remainder". There is no listing in the
 *   seeds.
 * Signature: int remainder_int(int a, int b)
 *   Returns a % b with C semantics (the sign follows a), or REMAINDER_ERROR (-1000000) when
 *   b == 0. The function is named remainder_int because remainder() is a C library function.
 * Inputs and ranges: there is no paper range. We chose a and b in [-1000, 1000], which bounds the
 *   loops at 1000 iterations. Values are held in long long, so no int input overflows. Unranged,
 *   a loop could take 2^31 iterations and trip the timeout.
 * evotest options: --range a=-1000..1000 --range b=-1000..1000
 *
 * Branch sites (evotest sites): 9 sites, 18 outcomes:
 *   line 41:11  b == 0
 *   line 43:11  a == 0
 *   line 45:11  a > 0
 *   line 46:15  b > 0           (a > 0)
 *   line 47:24  rem >= step     (loop, a > 0, b > 0)
 *   line 50:24  rem >= -step    (loop, a > 0, b < 0)
 *   line 54:15  b > 0           (a < 0)
 *   line 55:25  -rem >= step    (loop, a < 0, b > 0)
 *   line 58:24  rem <= step     (loop, a < 0, b < 0)
 * Feasible outcomes: 18 of 18. No outcome is infeasible. Each loop is true when |a| >= |b|, e.g.
 *   (7, 3), (7, -3), (-7, 3), (-7, -3). It is false when |a| < |b|, and always on exit. The
 *   hardest are line 41:11 `b == 0` → true, e.g. (5, 0), and line 43:11 `a == 0` → true, e.g.
 *   (0, 5).
 * Checked by: an llvm-cov branch count over every input in the declared ranges (4,004,001
 *   pairs). Every outcome was taken, and every result equalled a % b or the sentinel. ASan and
 *   UBSan were clean.
 */
#define REMAINDER_ERROR (-1000000)

/* a % b (C semantics: the remainder takes the sign of a), by repeated subtraction.
 * Named remainder_int because remainder() is a C library function. */
int remainder_int(int a, int b)
{
    long long rem = a, step = b; /* long long: -step and -rem must not overflow */
    if (b == 0)
        return REMAINDER_ERROR;
    if (a == 0)
        return 0;
    if (a > 0) {
        if (b > 0) {
            while (rem >= step)
                rem -= step;
        } else {
            while (rem >= -step)
                rem += step;
        }
    } else {
        if (b > 0) {
            while (-rem >= step)
                rem += step;
        } else {
            while (rem <= step)
                rem -= step;
        }
    }
    return (int)rem;
}
