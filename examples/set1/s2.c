/*
 * s2.c: a synthetic program of magic numbers in nested conditions and switch tables: a message
 * decoder whose header fields must hold exact magic values, with a switch on the message type
 * and arithmetic relations between fields (`len == hdr + 10`). In the style of Anjum & Ryan
 * 2021's Set 1 synthetic programs; written afresh for evotest.
 *
 * Signature: int s2(int magic, int version, int type, int hdr, int len, int crc)
 * Inputs and ranges: six ints over the whole int range.
 * Returns an error code (< 0) or the decoded message kind (1..7).
 * Condition-decision objectives: see bench/ge-set1.toml (`feasible`), all feasible; checked by
 *   the bench's ground truth (llvm-cov-22 branch and MC/DC views).
 */

int s2(int magic, int version, int type, int hdr, int len, int crc)
{
    if (magic != 0x5EED)
        return -1;
    if (version < 2 || version > 4)
        return -2;
    if (len != hdr + 10)
        return -3;
    switch (type) {
    case 17:
        if (crc == 0xBEEF)
            return 1;
        return 2;
    case 42:
        if (version == 3 && hdr == 64)
            return 3;
        return 4;
    case 1000:
        if (crc == len * 2)
            return 5;
        return 6;
    default:
        return 7;
    }
}
