/*
 * vitamin_d.c: classifies a serum 25-hydroxyvitamin D level, given in nmol/L or in ng/mL, into
 * the usual bands (deficient < 25 nmol/L, insufficient < 50, adequate < 125, high < 250,
 * potentially toxic above), with an age rule for infants. Written afresh for evotest as one of
 * ten constant-heavy programs standing in for Anjum & Ryan 2021's Set 1 ("Vitamin D Levels" is
 * on their list; their programs are not published).
 *
 * Signature: int vitamin_d(double level, int unit, int age_months)
 * Inputs and ranges: level in [-1000, 1000] (at 0.01), unit and age_months over the whole int
 *   range.
 * evotest options: --range level=-1000..1000@0.01
 * Returns the band 1..5, 0 for an invalid input.
 * Constants: the band limits 25, 50, 125, 250 nmol/L, the conversion factor 2.496, the unit
 *   codes 1 (nmol/L) and 2 (ng/mL), the infant age limit 12 months and the infant limit 75.
 * Condition-decision objectives: see bench/ge-set1.toml (`feasible`), all feasible; checked by
 *   the bench's ground truth (llvm-cov-22 branch and MC/DC views).
 */

int vitamin_d(double level, int unit, int age_months)
{
    double nmol;
    if (level <= 0.0 || age_months < 0)
        return 0;
    if (unit == 1)
        nmol = level;
    else if (unit == 2)
        nmol = level * 2.496;
    else
        return 0;
    if (nmol < 25.0)
        return 1;
    if (nmol < 50.0)
        return 2;
    if (age_months < 12 && nmol > 75.0)
        return 4;
    if (nmol < 125.0)
        return 3;
    if (nmol < 250.0)
        return 4;
    return 5;
}
