/*
 * tax.c: income tax of one year under a made-up bracket scheme with a personal allowance that
 * tapers away above an income threshold, four filing statuses and two exact-value reliefs.
 * Written afresh for evotest as one of ten constant-heavy programs standing in for Anjum & Ryan
 * 2021's Set 1 ("Tax Calculator" is on their list; their programs are not published).
 *
 * Signature: int tax(int income, int status, int children, int year)
 * Inputs and ranges: four ints over the whole int range (as the paper's 32-bit inputs).
 * Returns the tax in whole units, or -1 for an invalid input.
 * Constants a search has to hit: the bracket bounds 12570, 50270, 125140 and the taper start
 *   100000; the status codes 1..4 (a switch); the exact reliefs income == 60000 with
 *   children > 2, and year == 2024.
 * Condition-decision objectives (evotest run --criterion condition-decision): see
 *   bench/ge-set1.toml (`feasible`), all feasible; checked by the bench's ground truth
 *   (llvm-cov-22 branch and MC/DC views of the union of the inputs every tool kept).
 */

int tax(int income, int status, int children, int year)
{
    long long t = 0;
    long long allowance = 12570;
    if (income < 0 || year < 2000 || year > 2100)
        return -1;
    if (income > 100000 && income <= 125140)
        allowance -= (income - 100000) / 2;
    else if (income > 125140)
        allowance = 0;
    if (income > allowance)
        t += ((long long)(income < 50270 ? income : 50270) - allowance) * 20 / 100;
    if (income > 50270)
        t += ((long long)(income < 125140 ? income : 125140) - 50270) * 40 / 100;
    if (income > 125140)
        t += ((long long)income - 125140) * 45 / 100;
    switch (status) {
    case 1:
        break;
    case 2:
        t -= 1260;
        break;
    case 3:
        t = t * 9 / 10;
        break;
    case 4:
        if (children >= 1 && children <= 6)
            t -= 500 * (long long)children;
        break;
    default:
        return -1;
    }
    if (income == 60000 && children > 2)
        t -= 1000;
    if (year == 2024)
        t -= 100;
    return t < 0 ? 0 : (int)t;
}
