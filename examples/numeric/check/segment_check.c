#include "check.h"

int segment(double x1, double y1, double x2, double y2);

/* Independent oracle, for small integer coordinates only (then the slope is finite and nonzero
 * whenever x1 != x2 and y1 != y2): the crossing x1 - y1 (x2 - x1) / (y2 - y1) compared with
 * [0, 10] exactly by cross-multiplication. Inputs whose exact crossing is 0 or 10 are skipped,
 * since the program's rounded crossing may land on either side there. */
static int oracle_int(long x1, long y1, long x2, long y2, int *skip)
{
    *skip = 0;
    if (x1 == x2)
        return y1 == y2 ? 0 : 1;
    if (y1 == y2)
        return 2;
    long dy = y2 - y1, num = x1 * dy - y1 * (x2 - x1); /* crossing = num / dy */
    if (dy < 0) {
        dy = -dy;
        num = -num;
    }
    if (num == 0 || num == 10 * dy)
        *skip = 1;
    if (num < 0 || num > 10 * dy)
        return 6;
    return (y1 <= 0 && y2 >= 0) || (y1 >= 0 && y2 <= 0) ? 4 : 5;
}

int main(void)
{
    for (long x1 = -6; x1 <= 14; x1 += 2)
        for (long y1 = -6; y1 <= 6; y1++)
            for (long x2 = -6; x2 <= 14; x2++)
                for (long y2 = -6; y2 <= 6; y2++) {
                    int skip, want = oracle_int(x1, y1, x2, y2, &skip);
                    int got = segment(x1, y1, x2, y2);
                    if (!skip)
                        EXPECT(got, want, "(%ld, %ld, %ld, %ld)", x1, y1, x2, y2);
                }
    static const double sp[] = {NAN, INFINITY, -INFINITY, 0.0, -0.0, 1.0, -1.0, 5.0, 10.0, 1e-300, 1e300, -1e300,
                                1e-320, 1.7976931348623157e308};
    enum { NS = sizeof sp / sizeof *sp };
    long hist[8] = {0};
    for (int a = 0; a < NS; a++)
        for (int b = 0; b < NS; b++)
            for (int c = 0; c < NS; c++)
                for (int d = 0; d < NS; d++) {
                    int r = segment(sp[a], sp[b], sp[c], sp[d]);
                    int nan = isnan(sp[a]) || isnan(sp[b]) || isnan(sp[c]) || isnan(sp[d]);
                    EXPECT(r == -1, nan, "NaN (%a, %a, %a, %a)", sp[a], sp[b], sp[c], sp[d]);
                    hist[r + 1]++;
                }
    for (long i = 0; i < 2000000; i++) {
        double x1 = rnd_double_bits(), y1 = rnd_double_bits(), x2 = rnd_double_bits(), y2 = rnd_double_bits();
        int r = segment(x1, y1, x2, y2);
        EXPECT(r == -1, isnan(x1) || isnan(y1) || isnan(x2) || isnan(y2), "NaN");
        hist[r + 1]++;
        r = segment(rnd_uniform(-20, 30), rnd_uniform(-20, 20), rnd_uniform(-20, 30), rnd_uniform(-20, 20));
        hist[r + 1]++;
    }
    printf("results NaN..MISSES:");
    for (int k = 0; k < 8; k++)
        printf(" %ld", hist[k]);
    printf("\n");
    return report("segment");
}
