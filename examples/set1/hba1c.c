/*
 * hba1c.c: interprets an HbA1c result, given in percent (DCCT) or in mmol/mol (IFCC), as normal,
 * prediabetes or diabetes, with a tighter target for pregnancy and a looser one for the
 * elderly. Written afresh for evotest as one of ten constant-heavy programs standing in for
 * Anjum & Ryan 2021's Set 1 ("HBA1c Levels" is on their list; their programs are not published).
 *
 * Signature: int hba1c(double value, int ifcc, int age, int pregnant)
 * Inputs and ranges: value in [-200, 200] (at 0.01), the ints over the whole int range.
 * evotest options: --range value=-200..200@0.01
 * Returns 1 (normal), 2 (prediabetes), 3 (diabetes), 4 (above the pregnancy target), 5 (above
 *   the elderly target), 0 for an invalid input.
 * Constants: the IFCC conversion (mmol/mol = 10.929 (% - 2.15)), the limits 5.7 % and 6.5 %,
 *   the pregnancy target 48 mmol/mol, the elderly target 58 mmol/mol from age 75, ifcc == 1,
 *   pregnant == 1.
 * Condition-decision objectives: see bench/ge-set1.toml (`feasible`), all feasible; checked by
 *   the bench's ground truth (llvm-cov-22 branch and MC/DC views).
 */

int hba1c(double value, int ifcc, int age, int pregnant)
{
    double mmol, pct;
    if (value <= 0.0 || age < 0 || age > 120)
        return 0;
    if (ifcc == 1) {
        mmol = value;
        pct = value / 10.929 + 2.15;
    } else {
        pct = value;
        mmol = (value - 2.15) * 10.929;
    }
    if (pct > 20.0)
        return 0;
    if (pregnant == 1 && mmol > 48.0)
        return 4;
    if (age >= 75 && mmol > 58.0)
        return 5;
    if (pct < 5.7)
        return 1;
    if (pct < 6.5)
        return 2;
    return 3;
}
