#include "check.h"

int luhn(const int *digits);

/* independent oracle: Luhn's rule as usually stated, from the rightmost digit leftwards,
 * doubling every second digit and summing the digits of the products */
static int oracle(const int *d)
{
    for (int i = 0; i < 16; i++)
        if (d[i] < 0 || d[i] > 9)
            return -1;
    int sum = 0;
    for (int k = 0; k < 16; k++) { /* k-th digit from the right */
        int v = d[15 - k];
        if (k % 2 == 1)
            v = (2 * v) / 10 + (2 * v) % 10;
        sum += v;
    }
    if (sum % 10)
        return 0;
    if (d[0] == 4)
        return 2;
    if (d[0] == 5 && d[1] >= 1 && d[1] <= 5)
        return 3;
    return 1;
}

static void one(const int *d)
{
    EXPECT(luhn(d), oracle(d), "(%d %d %d %d ...)", d[0], d[1], d[2], d[3]);
}

int main(void)
{
    int d[16];
    long hist[5] = {0};
    for (long i = 0; i < 3000000; i++) {
        for (int k = 0; k < 16; k++) /* the declared range -1..10 */
            d[k] = (int)rnd_range(-1, 10);
        one(d);
        hist[luhn(d) + 1]++;
        for (int k = 0; k < 16; k++) /* valid digits */
            d[k] = (int)rnd_range(0, 9);
        one(d);
        hist[luhn(d) + 1]++;
        if (i % 3 == 0) { /* a fixed prefix, then the check digit made right by search over 0..9 */
            d[0] = (int)rnd_range(3, 6);
            d[1] = (int)rnd_range(0, 6);
            for (d[15] = 0; d[15] <= 9 && oracle(d) == 0; d[15]++)
                ;
            if (d[15] <= 9) {
                one(d);
                hist[luhn(d) + 1]++;
            }
        }
    }
    for (int v = -1; v <= 10; v++) { /* one bad digit at each position */
        for (int k = 0; k < 16; k++)
            d[k] = 0;
        for (int k = 0; k < 16; k++) {
            d[k] = v;
            one(d);
            d[k] = 0;
        }
    }
    printf("results BAD_DIGIT..MASTERCARD: %ld %ld %ld %ld %ld\n", hist[0], hist[1], hist[2], hist[3], hist[4]);
    return report("luhn");
}
