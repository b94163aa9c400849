/*
 * calday.c: the Julian day number of a calendar date. The Julian calendar is used before
 * 15 October 1582 and the Gregorian from then on. The control structure is that of julday in
 * Numerical Recipes in C (§1.1). Written afresh for evotest from the published algorithm; no
 * Numerical Recipes text is reproduced. The error exit returns a sentinel instead of calling
 * nrerror().
 *
 * Source: a classic SBST subject (calDay). There is no listing in the seeds. Of the two usual
 *   choices, Julian day number or day of the year, this file computes the Julian day number.
 * Signature: int calday(int month, int day, int year)
 *   Returns the Julian day number, e.g. 1/1/2000 → 2451545, 15/10/1582 → 2299161 and
 *   1/1/-4713 → 0. It returns CALDAY_ERROR (-1) for year 0. Years before 1 AD are negative
 *   (-1 is 1 BC), and there is no year 0. Like julday, it does not validate month and day
 *   (31 February gives 3 March).
 * Inputs and ranges: there is no paper range. We chose month 1..12, day 1..31 and year
 *   -4713..9999. -4713 is the start of the Julian period (day number 0), so every result in range
 *   is >= 0 and the sentinel -1 is unambiguous. The arithmetic is in long long.
 * evotest options: --range month=1..12 --range day=1..31 --range year=-4713..9999
 *
 * Branch sites (evotest sites): 4 sites, 8 outcomes:
 *   line 41:14  year == 0
 *   line 44:11  y < 0           (BC year: shift to astronomical numbering)
 *   line 47:15  month > 2
 *   line 55:44  day + 31 * (month + 12 * year) >= 588829   (on or after 15 Oct 1582)
 * Feasible outcomes: 8 of 8. No outcome is infeasible. The hardest is line 41:14 `year == 0` →
 *   true, e.g. (1, 1, 0).
 * Checked by: an llvm-cov branch count over every input in the declared ranges (5,473,236).
 *   Every outcome was taken. Every result was checked against the independent integer formulas
 *   for the Julian and Gregorian calendars (Fliegel & Van Flandern style), with the switch
 *   applied by date. ASan and UBSan were clean.
 */
#include <math.h>

#define CALDAY_ERROR (-1)
/* 15 October 1582, the first Gregorian date, coded as day + 31 * (month + 12 * year) */
#define GREGORIAN_START (15 + 31 * (10 + 12 * 1582))

/* Julian day number of the day starting at noon of month/day/year (year < 0: BC; no year 0). */
int calday(int month, int day, int year)
{
    if (year == 0)
        return CALDAY_ERROR;
    long long y = year;
    if (y < 0)
        y += 1; /* 1 BC is astronomical year 0 */
    long long jy, jm;
    if (month > 2) {
        jy = y;
        jm = month + 1LL;
    } else { /* January and February count as months 13 and 14 of the year before */
        jy = y - 1;
        jm = month + 13LL;
    }
    long long jd = (long long)floor(365.25 * jy) + (long long)floor(30.6001 * jm) + day + 1720995;
    if (day + 31LL * (month + 12LL * year) >= GREGORIAN_START) {
        long long century = jy / 100; /* jy > 0 here */
        jd += 2 - century + century / 4;
    }
    return (int)jd;
}
