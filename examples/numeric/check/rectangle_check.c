#include "check.h"

int rectangle(double x, double y);

/* independent oracle: the square first as a closed box, then the signs */
static int sgn(double v) { return (v > 0) - (v < 0); }

static int oracle(double x, double y)
{
    if (isnan(x) || isnan(y))
        return -1;
    int inx = !(x < 0) && !(x > 10), iny = !(y < 0) && !(y > 10);
    if (inx && iny) {
        if (x == y)
            return 0;
        if (x == 0 || y == 0 || x == 10 || y == 10)
            return 1;
        return 2;
    }
    static const int tab[3][3] = {/* [sgn x + 1][sgn y + 1] */
                                  {5, 8, 4},
                                  {10, -9, 9},
                                  {6, 7, 3}};
    return tab[sgn(x) + 1][sgn(y) + 1];
}

static void one(double x, double y) { EXPECT(rectangle(x, y), oracle(x, y), "(%a, %a)", x, y); }

int main(void)
{
    static const double sp[] = {NAN, -NAN, INFINITY, -INFINITY, 0.0, -0.0, 10.0, 1e-300, -1e-300, 5.0,
                                10.000000000000002, 9.999999999999998, 1e308, -1e308, 4.9e-324};
    for (int i = -44; i <= 84; i++) /* quarter steps over [-11, 21] */
        for (int j = -44; j <= 84; j++)
            one(i / 4.0, j / 4.0);
    for (unsigned i = 0; i < sizeof sp / sizeof *sp; i++)
        for (unsigned j = 0; j < sizeof sp / sizeof *sp; j++)
            one(sp[i], sp[j]);
    for (unsigned i = 0; i < sizeof sp / sizeof *sp; i++)
        for (int j = -44; j <= 84; j++) {
            one(sp[i], j / 4.0);
            one(j / 4.0, sp[i]);
        }
    for (long i = 0; i < 3000000; i++) {
        one(rnd_double_bits(), rnd_double_bits());
        one(rnd_uniform(-20, 30), rnd_uniform(-20, 30));
    }
    return report("rectangle");
}
