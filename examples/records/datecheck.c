/*
 * datecheck.c: a calendar date given as a structure: out of range, an invalid month or day
 * (month lengths and leap years), New Year's Day, New Year's Eve, Friday the 13th, a weekend day,
 * or another weekday (Zeller's congruence).
 *
 * Source: written for evotest (a structure of ints by value); date validity and day-of-week are
 *   classic subjects of search-based test generation (e.g. nextdate, calday).
 * Signature: int datecheck(struct date d)
 *   Returns -1 (year outside 1..9999), -2 (month), -3 (day), 1 (1 January), 2 (31 December),
 *   3 (Friday the 13th), 4 (Saturday or Sunday), 0 (another weekday).
 * Inputs and ranges: every member over the whole int range.
 * evotest options: none.
 * Feasible outcomes: all (checked by the benchmark's ground truth, `make bench-records`).
 */
struct date {
    int year, month, day;
};

static int leap(int y)
{
    return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
}

int datecheck(struct date d)
{
    static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (d.year < 1 || d.year > 9999)
        return -1;
    if (d.month < 1 || d.month > 12)
        return -2;
    int dim = mdays[d.month - 1];
    if (d.month == 2 && leap(d.year))
        dim = 29;
    if (d.day < 1 || d.day > dim)
        return -3;
    if (d.month == 1 && d.day == 1)
        return 1;
    if (d.month == 12 && d.day == 31)
        return 2;
    /* Zeller's congruence: 0 is Saturday, 6 is Friday */
    int m = d.month, y = d.year;
    if (m < 3) {
        m += 12;
        y -= 1;
    }
    int k = y % 100, j = y / 100;
    int h = (d.day + 13 * (m + 1) / 5 + k + k / 4 + j / 4 + 5 * j) % 7;
    if (h == 6 && d.day == 13)
        return 3;
    if (h == 0 || h == 1)
        return 4;
    return 0;
}
