/*
 * payday.c: the day of the month of the last weekday (Monday to Friday) of a month, for payroll:
 * the month's length with Gregorian leap years, then Zeller's congruence for the weekday of its
 * last day, moved back to Friday from a Saturday or Sunday.
 *
 * Source: written for evotest; Zeller's congruence (Chr. Zeller, 1882/1887), in its usual
 *   programming form with January and February as months 13 and 14 of the year before.
 * Signature: int payday(int year, int month)
 *   Returns a day in 26..31, or -1 when year is outside 1583..9999 (whole Gregorian years) or
 *   month outside 1..12.
 * Inputs and ranges: year in [1582, 10000] and month in [0, 13], one step past each valid bound.
 *   Any int input is safe (the arithmetic runs only on valid inputs).
 * evotest options: --range year=1582..10000 --range month=0..13
 *
 * Branch sites (evotest sites): 15 sites, 31 outcomes (a br or select site has outcomes
 *   [true, false]):
 *   line 49:14   year < 1583
 *   line 49:29   year > 9999
 *   line 51:15   month < 1
 *   line 51:28   month > 12
 *   line 54:15   month == 4
 *   line 54:29   month == 6
 *   line 54:43   month == 9
 *   line 54:57   month == 11
 *   line 56:22   month == 2
 *   line 58:22   year % 4 == 0
 *   line 58:42   year % 100 != 0
 *   line 58:61   year % 400 == 0
 *   line 63:11   m < 3
 *   line 69:11   h < 0
 *   line 71:5    switch h                    [default, case 0, case 1]
 * Feasible outcomes: 30 of 31. The infeasible outcome and why:
 *   - `h < 0` → true: the dividend of `% 7` is a sum of non-negative terms (last >= 28,
 *     m + 1 >= 4, and y >= 1582, so k, j and their quotients are >= 0), so h is in 0..6. The
 *     guard is the usual defence against C's remainder of a negative dividend.
 * Hardest feasible outcomes: `year % 400 == 0` → true needs February of a multiple of 400;
 *   `switch h` → case 0 (the last day is a Saturday) and case 1 (a Sunday) happen for about 1 in
 *   7 valid months each.
 * Checked by: examples/numeric/check/check.sh payday (driver payday_check.c): clang-22 coverage
 *   build, llvm-cov-22 show --show-branches=count, over every input of the declared ranges
 *   (8,419 x 14 = 117,866) and 3 million random ints. Every outcome but `h < 0` → true was
 *   taken. Results were compared with an independent oracle: the last day from the day numbers
 *   of the 1st of this and the next month, and its weekday from the day number mod 7.
 */
#define INVALID (-1)

int payday(int year, int month)
{
    if (year < 1583 || year > 9999)
        return INVALID;
    if (month < 1 || month > 12)
        return INVALID;
    int last = 31;
    if (month == 4 || month == 6 || month == 9 || month == 11) {
        last = 30;
    } else if (month == 2) {
        last = 28;
        if (year % 4 == 0 && (year % 100 != 0 || year % 400 == 0))
            last = 29;
    }
    /* Zeller's congruence for the weekday of the last day: 0 Saturday, 1 Sunday, ..., 6 Friday */
    int m = month, y = year;
    if (m < 3) {
        m += 12; /* January and February count as months 13 and 14 of the year before */
        y -= 1;
    }
    int k = y % 100, j = y / 100;
    int h = (last + 13 * (m + 1) / 5 + k + k / 4 + j / 4 + 5 * j) % 7;
    if (h < 0)
        h += 7; /* C's remainder takes the sign of the dividend */
    switch (h) {
    case 0:
        return last - 1; /* Saturday: pay on the Friday before */
    case 1:
        return last - 2; /* Sunday */
    default:
        return last;
    }
}
