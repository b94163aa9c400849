#include "check.h"
#include <limits.h>

int leapyear(int year);

/* independent oracle: the length of the year from day numbers. Years before 1582 (astronomical)
 * are Julian, after 1582 Gregorian, and 1582 runs from 1 January (Julian) to 1 January 1583
 * (Gregorian). Only for years in the jdn() domain. */
static int oracle(int year)
{
    if (year == 0)
        return -1;
    long long y = year < 0 ? year + 1LL : year;
    int j0 = y <= 1582, j1 = y + 1 <= 1582;
    return (int)(jdn(y + 1, 1, 1, j1) - jdn(y, 1, 1, j0));
}

/* outside the jdn() domain: the rules stated directly */
static int rules(int year)
{
    if (year == 0)
        return -1;
    long long y = year < 0 ? year + 1LL : year;
    if (y == 1582)
        return 355;
    long long r4 = ((y % 4) + 4) % 4, r100 = ((y % 100) + 100) % 100, r400 = ((y % 400) + 400) % 400;
    if (y < 1582)
        return r4 == 0 ? 366 : 365;
    return (r400 == 0 || (r4 == 0 && r100 != 0)) ? 366 : 365;
}

int main(void)
{
    for (int y = -4700; y <= 100000; y++)
        EXPECT(leapyear(y), oracle(y), "(%d)", y);
    for (int y = -200000; y <= 200000; y++)
        EXPECT(leapyear(y), rules(y), "(%d)", y);
    static const int ys[] = {INT_MIN, INT_MIN + 1, INT_MAX, -1, 1, 1581, 1582, 1583, 1600, 1700, 2000, -4, -5};
    for (unsigned k = 0; k < sizeof ys / sizeof *ys; k++)
        EXPECT(leapyear(ys[k]), rules(ys[k]), "(%d)", ys[k]);
    for (long i = 0; i < 4000000; i++) {
        int y = rnd_int();
        EXPECT(leapyear(y), rules(y), "(%d)", y);
    }
    return report("leapyear");
}
