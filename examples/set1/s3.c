/*
 * s3.c: a synthetic command interpreter whose decisions compare string parameters with string
 * constants (strcmp) and integers with magic numbers: the kind of constant the grammar of
 * Anjum & Ryan 2021 does not seed (it seeds numbers only). Written afresh for evotest.
 *
 * Signature: int s3(const char *cmd, const char *mode, int level, int key)
 * Inputs and ranges: cmd and mode strings of up to 6 characters from a-z; level and key ints
 *   over the whole int range.
 * evotest options: --string cmd=6:a-z --string mode=6:a-z
 * Returns a code 0..8.
 * Condition-decision objectives: see bench/ge-set1.toml (`feasible`), all feasible; checked by
 *   the bench's ground truth (llvm-cov-22 branch and MC/DC views).
 */

#include <string.h>

int s3(const char *cmd, const char *mode, int level, int key)
{
    if (strcmp(cmd, "start") == 0) {
        if (strcmp(mode, "fast") == 0 && level == 7)
            return 1;
        if (strcmp(mode, "safe") == 0 || level < 0)
            return 2;
        return 3;
    }
    if (strcmp(cmd, "stop") == 0) {
        if (key == 0x1234 && level > 100)
            return 4;
        return 5;
    }
    if (strcmp(cmd, "reset") == 0 && key == -1)
        return 6;
    if (strcmp(cmd, "") == 0)
        return 7;
    return 0;
}
