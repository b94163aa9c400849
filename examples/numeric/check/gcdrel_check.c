#include "check.h"
#include <limits.h>

int gcdrel(int a, int b);

/* independent oracle: Stein's binary gcd and the classification restated */
static unsigned long long bgcd(unsigned long long u, unsigned long long v)
{
    if (u == 0)
        return v;
    if (v == 0)
        return u;
    int s = __builtin_ctzll(u | v);
    u >>= __builtin_ctzll(u);
    do {
        v >>= __builtin_ctzll(v);
        if (u > v) {
            unsigned long long t = u;
            u = v;
            v = t;
        }
        v -= u;
    } while (v);
    return u << s;
}

static int oracle(int a, int b)
{
    unsigned long long ua = a < 0 ? -(long long)a : a, ub = b < 0 ? -(long long)b : b;
    if (ua == 0 && ub == 0)
        return -1;
    unsigned long long g = bgcd(ua, ub);
    if (g == 1)
        return 1;
    if (ua == ub)
        return 2;
    if (ua == 0 || ub == 0 || ua % ub == 0 || ub % ua == 0)
        return 3;
    unsigned long long l = ua / g * ub;
    return l > INT_MAX ? 4 : 5;
}

static void one(int a, int b) { EXPECT(gcdrel(a, b), oracle(a, b), "(%d, %d)", a, b); }

int main(void)
{
    for (int a = -300; a <= 300; a++)
        for (int b = -300; b <= 300; b++)
            one(a, b);
    static const int ex[] = {INT_MIN, INT_MIN + 1, INT_MAX, 0, 1, -1, 2, 65536, 100000, 100002, 46341};
    for (unsigned i = 0; i < sizeof ex / sizeof *ex; i++)
        for (unsigned j = 0; j < sizeof ex / sizeof *ex; j++)
            one(ex[i], ex[j]);
    for (long i = 0; i < 2000000; i++) {
        one(rnd_int(), rnd_int());
        int g = (int)rnd_range(2, 1000);
        one(g * (int)rnd_range(-2000000, 2000000), g * (int)rnd_range(-2000000, 2000000));
    }
    return report("gcdrel");
}
