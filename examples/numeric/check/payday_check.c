#include "check.h"
#include <limits.h>

int payday(int year, int month);

/* independent oracle: the last day is the day before the first of the next month, and the
 * weekday comes from the day number (JDN mod 7: 0 Monday ... 5 Saturday, 6 Sunday) */
static int oracle(int year, int month)
{
    if (year < 1583 || year > 9999 || month < 1 || month > 12)
        return -1;
    long long next = month == 12 ? jdn(year + 1, 1, 1, 0) : jdn(year, month + 1, 1, 0);
    long long lastj = next - 1;
    int last = (int)(lastj - jdn(year, month, 1, 0) + 1);
    int wd = (int)(lastj % 7);
    if (wd == 5)
        return last - 1;
    if (wd == 6)
        return last - 2;
    return last;
}

int main(void)
{
    for (int y = 1582; y <= 10000; y++) /* every input of the declared ranges */
        for (int m = 0; m <= 13; m++)
            EXPECT(payday(y, m), oracle(y, m), "(%d, %d)", y, m);
    for (long i = 0; i < 3000000; i++) {
        int y = rnd_int(), m = rnd_int();
        EXPECT(payday(y, m), oracle(y, m), "(%d, %d)", y, m);
    }
    EXPECT(payday(INT_MIN, 1), -1, "min");
    EXPECT(payday(INT_MAX, 1), -1, "max");
    return report("payday");
}
