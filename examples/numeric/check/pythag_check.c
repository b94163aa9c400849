#include "check.h"
#include <limits.h>

int pythag(int a, int b, int c);

/* independent oracle: sort-free restatement in long long */
static int oracle(int a, int b, int c)
{
    if (a < 1 || b < 1 || c < 1 || a > 30000 || b > 30000 || c > 30000)
        return -1;
    if (!(a <= b && b <= c))
        return -2;
    if ((long long)a + b <= c)
        return 0;
    long long s = (long long)a * a + (long long)b * b, cc = (long long)c * c;
    if (s == cc)
        return 1;
    if (s < cc)
        return 2;
    if (a == b && b == c)
        return 3;
    if (a == b || b == c)
        return 4;
    return 5;
}

static void one(int a, int b, int c) { EXPECT(pythag(a, b, c), oracle(a, b, c), "(%d, %d, %d)", a, b, c); }

int main(void)
{
    for (int a = -2; a <= 60; a++)
        for (int b = -2; b <= 60; b++)
            for (int c = -2; c <= 60; c++)
                one(a, b, c);
    /* all Pythagorean triples with c <= 30000 (Euclid's formula, multiples included), in order */
    long triples = 0;
    for (long m = 2; m * m < 30000; m++)
        for (long n = 1; n < m; n++) {
            long a = m * m - n * n, b = 2 * m * n, c = m * m + n * n;
            if (a > b) {
                long t = a;
                a = b;
                b = t;
            }
            for (long k = 1; k * c <= 30000; k++, triples++)
                one((int)(k * a), (int)(k * b), (int)(k * c));
        }
    static const int ed[] = {INT_MIN, -1, 0, 1, 2, 29999, 30000, 30001, INT_MAX};
    for (unsigned i = 0; i < 9; i++)
        for (unsigned j = 0; j < 9; j++)
            for (unsigned k = 0; k < 9; k++)
                one(ed[i], ed[j], ed[k]);
    for (long i = 0; i < 3000000; i++) {
        one(rnd_int(), rnd_int(), rnd_int());
        one((int)rnd_range(1, 30000), (int)rnd_range(1, 30000), (int)rnd_range(1, 30000));
        int a = (int)rnd_range(1, 30000), b = (int)rnd_range(a, 30000), c = (int)rnd_range(b, 30000);
        one(a, b, c);
    }
    printf("(%ld Pythagorean triple inputs)\n", triples);
    return report("pythag");
}
