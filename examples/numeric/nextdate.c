/*
 * nextdate.c: Jorgensen's NextDate: the date after a given date, with month, day and year
 * validated and years limited to 1812..2012. Written afresh for evotest from the textbook's
 * specification; no listing was copied.
 *
 * Source: P. C. Jorgensen, "Software Testing: A Craftsman's Approach" (NextDate, years 1812 to
 *   2012), a classic subject of test-generation studies.
 * Signature: int nextdate(int month, int day, int year)
 *   Returns the next date as year * 10000 + month * 100 + day (31 December 2012 gives
 *   20130101), or -1 when the date is invalid (year outside 1812..2012, month outside 1..12, day
 *   outside 1..days of that month, with Gregorian leap years).
 * Inputs and ranges: month in [0, 13], day in [0, 32], year in [1811, 2013]: one step past each
 *   valid bound, so that every validity check can fail (as examples/days.c does). Any int input
 *   is safe (the arithmetic runs only on valid dates).
 * evotest options: --range month=0..13 --range day=0..32 --range year=1811..2013
 *
 * Branch sites (evotest sites): 12 sites, 28 outcomes (a br or select site has outcomes
 *   [true, false]):
 *   line 47:14   year < 1812
 *   line 47:29   year > 2012
 *   line 49:15   month < 1
 *   line 49:28   month > 12
 *   line 52:5    switch month                [default, case 2, case 4, case 6, case 9, case 11]
 *   line 54:22   year % 4 == 0
 *   line 54:42   year % 100 != 0
 *   line 54:61   year % 400 == 0
 *   line 68:13   day < 1
 *   line 68:24   day > last
 *   line 70:13   day < last
 *   line 72:15   month < 12
 * Feasible outcomes: 28 of 28. None is infeasible.
 *   Hardest: `year % 400 == 0` → true needs February of 2000 (the only multiple of 400 in
 *   range); `year % 100 != 0` → false needs February of 1900 or 2000; `day > last` → true in
 *   February needs day 29 of a common year or 30..32; `month < 12` → false needs 31 December.
 * Checked by: examples/numeric/check/check.sh nextdate (driver nextdate_check.c): clang-22
 *   coverage build, llvm-cov-22 show --show-branches=count, over every input of the declared
 *   ranges (14 x 33 x 203 = 93,786), hand-picked dates (29 February 1900/2000/1812, 31 December
 *   2012, 31 April) and 6 million random inputs (whole int range and declared ranges). Every
 *   outcome was taken. Results were compared with an independent oracle: a date is valid when it
 *   survives a round trip through its Gregorian day number, and the next date is the date of the
 *   next day number (Richards' inverse).
 */
#define INVALID_DATE (-1)

int nextdate(int month, int day, int year)
{
    if (year < 1812 || year > 2012)
        return INVALID_DATE;
    if (month < 1 || month > 12)
        return INVALID_DATE;
    int last;
    switch (month) {
    case 2:
        if (year % 4 == 0 && (year % 100 != 0 || year % 400 == 0))
            last = 29;
        else
            last = 28;
        break;
    case 4:
    case 6:
    case 9:
    case 11:
        last = 30;
        break;
    default:
        last = 31;
    }
    if (day < 1 || day > last)
        return INVALID_DATE;
    if (day < last)
        return year * 10000 + month * 100 + day + 1;
    if (month < 12)
        return year * 10000 + (month + 1) * 100 + 1;
    return (year + 1) * 10000 + 101; /* 31 December: 1 January of the next year */
}
