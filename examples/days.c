/*
 * days.c: the number of days between two dates of the Gregorian calendar, after checking that
 * both dates are valid (year 1..9999, month 1..12, day within the month, with leap years).
 * Written afresh for evotest from the description in Anjum & Ryan 2021 (Set 2, "Days"); the paper gives
 * no listing and only says that Days takes dates, so the function below is ours.
 *
 * Source: Anjum & Ryan 2021 (a grammar seeded with program constants for grammatical evolution,
 *         Ariadne), "Empirical Evaluation", Set 2.
 * Signature: int days(int d1, int m1, int y1, int d2, int m2, int y2)
 * Inputs and ranges: the paper mapped 32-bit ints onto dates with a modulo step (not
 *         described). Here: days in [0, 32], months in [0, 13], years in [0, 10000], one step
 *         past each valid bound so that every validity check can fail. Any int input is safe
 *         (the arithmetic is in long long and only runs on valid dates).
 * evotest options: --range d1=0..32 --range m1=0..13 --range y1=0..10000 --range d2=0..32
 *         --range m2=0..13 --range y2=0..10000
 * Returns |day number of date 2 - day number of date 1| (0 .. 3652058), or -1 when a date is
 *         invalid.
 *
 * Branch sites (evotest sites): 20 sites, 44 outcomes (days and its static helpers is_leap,
 * month_length and day_number):
 *   line 83  y1 < 1        line 83  y1 > 9999      line 83  y2 < 1       line 83  y2 > 9999
 *   line 85  m1 < 1        line 85  m1 > 12        line 85  m2 < 1       line 85  m2 > 12
 *   line 89  d1 < 1        line 89  d1 > month_length(m1, leap1)
 *   line 89  d2 < 1        line 89  d2 > month_length(m2, leap2)
 *   line 93  n2 >= n1                                    (each of the above [true, false])
 *   line 45  y % 4 == 0    line 45  y % 100 != 0   line 45  y % 400 == 0     (in is_leap)
 *   line 53  switch m  [default, case 2, case 4, case 6, case 9, case 11]    (in month_length)
 *   line 55  leap != 0  (the ?: in month_length)                             [true, false]
 *   line 73  m > 2         line 73  leap != 0                                (in day_number)
 * Feasible outcomes: 44 of 44. None is infeasible.
 *   Hardest: for uniform inputs the rarest are line 83's true outcomes (a year of 0 or 10000,
 *   1 in 10001 each). Special values: line 45 `y % 400 == 0` → true needs a year divisible by
 *   400 (e.g. 2000); line 55 → true needs February of a leap year; line 89
 *   `d2 > month_length(m2, leap2)` → true e.g. (1, 1, 2000, 29, 2, 1900): 1900 is no leap year.
 * Checked by: a throwaway driver under clang-22 -fprofile-instr-generate -fcoverage-mapping,
 *   llvm-cov-22 show -show-branches=count, over 10^7 uniform random inputs in the ranges
 *   above, every (d, m, y) of the ranges for the first date (second date fixed), and
 *   hand-picked dates (29 Feb 1900/2000/2004, 31 Apr, the range bounds); the results were
 *   compared with an independent day count (a day-by-day walk from 1 Jan 1 to 31 Dec 9999).
 */

/* 1 for a leap year of the Gregorian calendar, else 0. */
static int is_leap(int y)
{
    if ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0)
        return 1;
    return 0;
}

/* The number of days in month m (1..12); leap says whether the year is a leap year. */
static int month_length(int m, int leap)
{
    switch (m) {
    case 2:
        return leap ? 29 : 28;
    case 4:
    case 6:
    case 9:
    case 11:
        return 30;
    default:
        return 31;
    }
}

/* Days from 1 January of year 1 to the given valid date (1 January of year 1 is day 1). */
static long long day_number(int d, int m, int y, int leap)
{
    static const int before[12] = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334};
    long long p = (long long)y - 1;
    long long n = p * 365 + p / 4 - p / 100 + p / 400 + before[m - 1] + d;

    if (m > 2 && leap)
        n++;
    return n;
}

int days(int d1, int m1, int y1, int d2, int m2, int y2)
{
    int leap1, leap2;
    long long n1, n2;

    if (y1 < 1 || y1 > 9999 || y2 < 1 || y2 > 9999)
        return -1;
    if (m1 < 1 || m1 > 12 || m2 < 1 || m2 > 12)
        return -1;
    leap1 = is_leap(y1);
    leap2 = is_leap(y2);
    if (d1 < 1 || d1 > month_length(m1, leap1) || d2 < 1 || d2 > month_length(m2, leap2))
        return -1;
    n1 = day_number(d1, m1, y1, leap1);
    n2 = day_number(d2, m2, y2, leap2);
    if (n2 >= n1)
        return (int)(n2 - n1);
    return (int)(n1 - n2);
}
