#include "check.h"

int fclamp(double x, double lo, double hi);

/* independent oracle, restated from the IEEE view of the closed interval [lo, hi] */
static int oracle(double x, double lo, double hi)
{
    if (lo != lo || hi != hi)
        return -2;
    if (!(lo <= hi))
        return -1;
    if (x != x)
        return 0;
    if (isinf(lo) && lo < 0 && isinf(hi) && hi > 0)
        return 1;
    if (x < lo)
        return 3;
    if (x > hi)
        return 4;
    if (isinf(x))
        return 6; /* x is an infinite bound of the interval */
    if (x == lo || x == hi)
        return 5;
    return isinf(lo) || isinf(hi) ? 6 : 2;
}

/* outcomes of the selects inside isinf(lo) and isinf(hi) (evotest sites 14, 15, 17, 18) over the
 * inputs that reach them: finite x strictly inside [lo, hi] */
static long sel[4][2];

static void one(double x, double lo, double hi)
{
    int r = fclamp(x, lo, hi);
    EXPECT(r, oracle(x, lo, hi), "(%a, %a, %a)", x, lo, hi);
    if (r == 2 || (r == 6 && !isinf(x))) { /* reached the isinf() tests */
        sel[0][!(lo < 0)]++;
        sel[1][!isinf(lo)]++;
        if (!isinf(lo)) {
            sel[2][!(hi < 0)]++;
            sel[3][!isinf(hi)]++;
        }
    }
}

int main(void)
{
    static const double sp[] = {NAN, INFINITY, -INFINITY, -1e308, -2.0, -1.0, -0.0, 0.0, 1e-310, 1.0, 2.0, 3.0, 1e308};
    enum { NS = sizeof sp / sizeof *sp };
    for (int a = 0; a < NS; a++)
        for (int b = 0; b < NS; b++)
            for (int c = 0; c < NS; c++)
                one(sp[a], sp[b], sp[c]);
    for (long i = 0; i < 3000000; i++) {
        one(rnd_double_bits(), rnd_double_bits(), rnd_double_bits());
        double lo = rnd_uniform(-10, 10), hi = lo + rnd_uniform(0, 10);
        one(rnd_uniform(-20, 20), lo, hi);
        one(sp[rnd64() % NS], sp[rnd64() % NS], rnd_uniform(-5, 5));
        one(rnd_uniform(-5, 5), sp[rnd64() % NS], sp[rnd64() % NS]);
    }
    printf("isinf selects [true, false]: lo < 0 [%ld, %ld], fabs(lo) == inf [%ld, %ld], "
           "hi < 0 [%ld, %ld], fabs(hi) == inf [%ld, %ld]\n",
           sel[0][0], sel[0][1], sel[1][0], sel[1][1], sel[2][0], sel[2][1], sel[3][0], sel[3][1]);
    return report("fclamp");
}
