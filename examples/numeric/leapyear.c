/*
 * leapyear.c: the number of days in a year, with the Julian calendar before 1582, the
 * Gregorian from 1583, the short year 1582 (5 to 14 October were dropped) and no year 0.
 *
 * Source: the leap-year rule is a staple subject of search-based and symbolic test generation
 *   studies and tutorials; no listing was taken from any of them. This variant, with the
 *   calendar switch and the missing year 0, was written for evotest.
 * Signature: int leapyear(int year)
 *   Returns 366, 365, 355 (1582) or -1 for year 0. Negative years are BC (-1 is 1 BC), converted
 *   to astronomical numbering (1 BC is year 0) in long long.
 * Inputs and ranges: year over the whole int range.
 * evotest options: none.
 *
 * Branch sites (evotest sites): 8 sites, 16 outcomes (a br or select site has outcomes
 *   [true, false]):
 *   line 41:14   year == 0
 *   line 44:11   y < 0
 *   line 46:11   y == 1582
 *   line 48:11   y < 1582
 *   line 49:19   y % 4 == 0                  (Julian)
 *   line 53:15   y % 4 == 0                  (Gregorian)
 *   line 53:32   y % 100 != 0
 *   line 53:48   y % 400 == 0
 * Feasible outcomes: 16 of 16. None is infeasible.
 *   The equalities are the rare outcomes for uniform inputs: `year == 0` → true needs 0;
 *   `y == 1582` → true needs 1582; `y % 400 == 0` → true needs a multiple of 400 from 1600 on,
 *   and `y % 100 != 0` → false a century year from 1600 on (e.g. 1700). The Julian branch takes
 *   leap years before 1582 (e.g. 1500, and -1, i.e. 1 BC, which is astronomical year 0).
 * Checked by: examples/numeric/check/check.sh leapyear (driver leapyear_check.c): clang-22
 *   coverage build, llvm-cov-22 show --show-branches=count, over every year in
 *   [-200000, 200000], hand-picked years (INT_MIN, INT_MAX, 1581..1583, 1600, 1700, 2000) and
 *   4 million random ints. Every outcome was taken. Results were compared with an independent
 *   oracle: for years -4700..100000 the difference of the Julian/Gregorian day numbers of
 *   1 January of consecutive years (Fliegel & Van Flandern style formulas), elsewhere the rules
 *   restated with non-negative remainders.
 */
#define NO_SUCH_YEAR (-1)

int leapyear(int year)
{
    if (year == 0)
        return NO_SUCH_YEAR; /* 1 BC is followed by 1 AD */
    long long y = year;
    if (y < 0)
        y += 1; /* astronomical numbering: 1 BC is year 0, 2 BC is year -1 */
    if (y == 1582)
        return 355; /* 5 to 14 October 1582 were dropped */
    if (y < 1582) { /* Julian calendar */
        if (y % 4 == 0)
            return 366;
        return 365;
    }
    if (y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)) /* Gregorian calendar */
        return 366;
    return 365;
}
