/*
 * merit.c: an admission merit score from test marks, with entry thresholds, a category quota
 * table (a switch) and exact-value bonuses. Written afresh for evotest as one of ten
 * constant-heavy programs standing in for Anjum & Ryan 2021's Set 1 ("Admission Merit" is on
 * their list; their programs are not published).
 *
 * Signature: int merit(int matric, int inter, int entry, int category)
 * Inputs and ranges: four ints over the whole int range.
 * Returns the merit in tenths of a percent, 0 when the candidate is not eligible, -1 for marks
 *   out of their scales (matric 0..1100, inter 0..1100, entry 0..400).
 * Constants: the scales 1100 and 400, the thresholds 660 (60% of 1100), 550, 200 and 330, the
 *   category codes 10, 20, 30, 40, and the bonus marks entry == 400 and matric == 1100.
 * Condition-decision objectives: see bench/ge-set1.toml (`feasible`), all feasible; checked by
 *   the bench's ground truth (llvm-cov-22 branch and MC/DC views).
 */

int merit(int matric, int inter, int entry, int category)
{
    int m;
    if (matric < 0 || matric > 1100 || inter < 0 || inter > 1100 || entry < 0 || entry > 400)
        return -1;
    if (matric < 660 || inter < 550)
        return 0;
    if (entry < 200 && category != 40)
        return 0;
    m = (matric * 100 / 1100) * 1 + (inter * 100 / 1100) * 5 + (entry * 100 / 400) * 4;
    switch (category) {
    case 10:
        break;
    case 20:
        m += 20;
        break;
    case 30:
        if (entry >= 330)
            m += 50;
        break;
    case 40:
        m += 100;
        break;
    default:
        return 0;
    }
    if (entry == 400 || matric == 1100)
        m += 5;
    return m;
}
