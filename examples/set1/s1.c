/*
 * s1.c: a synthetic program with deep nesting (four levels), compound conditions, and
 * dependencies between inputs and between inputs and constants, in the style of Anjum & Ryan
 * 2021's Set 1 synthetic programs S1-S3 and their examples (`x > y && z == 5000`,
 * `z > 100 && z < 150`, `f == -80` three levels deep). Written afresh for evotest.
 *
 * Signature: int s1(int x, int y, int z, int w, int f, int g)
 * Inputs and ranges: six ints over the whole int range.
 * Returns the number of the innermost block reached (1..10).
 * Condition-decision objectives: see bench/ge-set1.toml (`feasible`), all feasible; checked by
 *   the bench's ground truth (llvm-cov-22 branch and MC/DC views).
 */

int s1(int x, int y, int z, int w, int f, int g)
{
    if (x > y && z == 5000) {
        if (w > 100 && w < 150) {
            if (f == -80 || g == x) {
                if (g >= 7777 && f != w)
                    return 1;
                return 2;
            }
            if (y == w - 1)
                return 3;
            return 4;
        }
        if (w == 2 * y)
            return 5;
        return 6;
    }
    if (x == 31337 || (y <= -4096 && z >= 4096))
        return 7;
    if (f == g && g == 12)
        return 8;
    return 9;
}
