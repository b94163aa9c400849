#include "check.h"
#include <limits.h>

int nextdate(int month, int day, int year);

/* independent oracle: a date is valid when it survives a round trip through its day number;
 * the next date is the date of the next day number */
static int oracle(int month, int day, int year)
{
    if (year < 1812 || year > 2012 || month < 1 || month > 12 || day < 1 || day > 31)
        return -1;
    long long j = jdn(year, month, day, 0), y, m, d;
    gregorian_from_jdn(j, &y, &m, &d);
    if (y != year || m != month || d != day)
        return -1;
    gregorian_from_jdn(j + 1, &y, &m, &d);
    return (int)(y * 10000 + m * 100 + d);
}

static void one(int m, int d, int y) { EXPECT(nextdate(m, d, y), oracle(m, d, y), "(%d, %d, %d)", m, d, y); }

int main(void)
{
    for (int y = 1811; y <= 2013; y++) /* every input of the declared ranges */
        for (int m = 0; m <= 13; m++)
            for (int d = 0; d <= 32; d++)
                one(m, d, y);
    static const int ex[][3] = {{2, 29, 1900}, {2, 29, 2000}, {2, 28, 2000}, {2, 29, 1812},
                                {12, 31, 2012}, {4, 31, 1999}, {INT_MIN, 1, 1900}, {1, INT_MAX, 1900}};
    for (unsigned k = 0; k < sizeof ex / sizeof *ex; k++)
        one(ex[k][0], ex[k][1], ex[k][2]);
    for (long i = 0; i < 3000000; i++) {
        one(rnd_int(), rnd_int(), rnd_int());
        one((int)rnd_range(0, 13), (int)rnd_range(0, 32), (int)rnd_range(1811, 2013));
    }
    return report("nextdate");
}
