#include "check.h"

int ean13(const int *digits);

/* independent oracle: the weighted sum of all 13 digits (weights 1, 3, 1, ..., 1) is a
 * multiple of 10 */
static int oracle(const int *d)
{
    for (int i = 0; i < 13; i++)
        if (d[i] < 0 || d[i] > 9)
            return -1;
    int sum = 0;
    for (int i = 0; i < 13; i++)
        sum += d[i] * (i & 1 ? 3 : 1);
    if (sum % 10)
        return 0;
    int p = d[0] * 100 + d[1] * 10 + d[2];
    if (p == 977)
        return 2;
    if (p == 978 || p == 979)
        return 1;
    if (p <= 19)
        return 3;
    if (p / 100 == 2)
        return 4;
    return 5;
}

static void one(const int *d) { EXPECT(ean13(d), oracle(d), "(%d %d %d ...)", d[0], d[1], d[2]); }

int main(void)
{
    int d[13];
    long hist[7] = {0};
    for (long i = 0; i < 3000000; i++) {
        for (int k = 0; k < 13; k++) /* the declared range -1..10 */
            d[k] = (int)rnd_range(-1, 10);
        one(d);
        hist[ean13(d) + 1]++;
        for (int k = 0; k < 13; k++)
            d[k] = (int)rnd_range(0, 9);
        if (i % 2) { /* prefixes 977..979, 00x..01x, 2xx */
            static const int pre[][3] = {{9, 7, 7}, {9, 7, 8}, {9, 7, 9}, {0, 0, 5},
                                         {0, 1, 9}, {2, 0, 0}, {2, 9, 9}, {3, 0, 0}};
            int p = (int)rnd_range(0, 7);
            d[0] = pre[p][0], d[1] = pre[p][1], d[2] = pre[p][2];
            for (d[12] = 0; d[12] <= 9 && oracle(d) == 0; d[12]++)
                ;
        }
        one(d);
        hist[ean13(d) + 1]++;
    }
    for (int v = -1; v <= 10; v++) /* a bad digit at each position */
        for (int k = 0; k < 13; k++) {
            for (int j = 0; j < 13; j++)
                d[j] = 0;
            d[k] = v;
            one(d);
        }
    printf("results BAD_DIGIT..PRODUCT: %ld %ld %ld %ld %ld %ld %ld\n", hist[0], hist[1], hist[2], hist[3], hist[4],
           hist[5], hist[6]);
    return report("ean13");
}
