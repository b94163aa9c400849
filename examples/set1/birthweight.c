/*
 * birthweight.c: classifies a newborn by birth weight (grams) and gestational age (completed
 * weeks): extremely/very/low birth weight, small or large for gestational age against a small
 * table of weight limits per week band. Written afresh for evotest as one of ten constant-heavy
 * programs standing in for Anjum & Ryan 2021's Set 1 ("Birth-Time Weights" is on their list;
 * their programs are not published).
 *
 * Signature: int birthweight(int grams, int weeks, int twins)
 * Inputs and ranges: three ints over the whole int range.
 * Returns a class code 1..9, 0 for an implausible input.
 * Constants: 1000, 1500, 2500 and 4000 grams; the week bands 28, 32, 37, 42; per-band weight
 *   limits (1800, 2600, 3000 and 3900, 4300); twins == 1.
 * Condition-decision objectives: see bench/ge-set1.toml (`feasible`), all feasible; checked by
 *   the bench's ground truth (llvm-cov-22 branch and MC/DC views).
 */

int birthweight(int grams, int weeks, int twins)
{
    if (grams < 300 || grams > 6500 || weeks < 22 || weeks > 44)
        return 0;
    if (grams < 1000)
        return 1;
    if (grams < 1500)
        return 2;
    if (weeks < 28)
        return grams > 1800 ? 3 : 2;
    if (weeks < 32) {
        if (grams > 1800 && twins != 1)
            return 4;
        return 3;
    }
    if (weeks < 37) {
        if (grams < 2500)
            return twins == 1 ? 5 : 6;
        return grams > 2600 ? 7 : 5;
    }
    if (grams < 2500 || (weeks >= 42 && grams < 3000))
        return 6;
    if (grams > 4000 && (grams > 4300 || weeks < 39))
        return 9;
    return grams > 3900 ? 8 : 7;
}
