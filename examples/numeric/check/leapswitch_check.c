#include "check.h"
#include <limits.h>

int leapswitch(int rule, int year);

/* independent oracle: divisibility through floor division in long long */
static int divides(long long k, long long y) { return y - k * (long long)floorl((long double)y / k) == 0; }
static long long fmod_floor(long long y, long long k)
{
    long long r = y - k * (long long)floorl((long double)y / k);
    return r;
}

static int oracle(int rule, int year)
{
    long long y = year;
    if (rule == 0)
        return divides(4, y);
    if (rule == 1)
        return divides(400, y) || (divides(4, y) && !divides(100, y));
    if (rule == 2) {
        if (!divides(4, y))
            return 0;
        if (!divides(100, y))
            return 1;
        long long r = fmod_floor(y, 900);
        return r == 200 || r == 600;
    }
    return -1;
}

static void one(int rule, int year) { EXPECT(leapswitch(rule, year), oracle(rule, year), "(%d, %d)", rule, year); }

int main(void)
{
    static const int rules[] = {INT_MIN, -1, 0, 1, 2, 3, 4, INT_MAX};
    for (unsigned r = 0; r < sizeof rules / sizeof *rules; r++)
        for (int y = -20000; y <= 20000; y++)
            one(rules[r], y);
    static const int years[] = {INT_MIN, INT_MIN + 1, INT_MAX, INT_MAX - 1, 0,    100,  200,
                                600,     900,         2000,    1900,        -700, -300, 2800};
    for (int r = -2; r <= 4; r++)
        for (unsigned k = 0; k < sizeof years / sizeof *years; k++)
            one(r, years[k]);
    for (long i = 0; i < 2000000; i++) {
        one(rnd_int(), rnd_int());           /* whole int range */
        one((int)rnd_range(0, 2), rnd_int()); /* a valid rule, any year */
    }
    return report("leapswitch");
}
