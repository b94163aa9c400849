/*
 * bitcount.c: how the set bits of a 32-bit word are arranged: none, all, a single bit, one
 * contiguous run, equal halves, or else its parity. Kernighan's loop counts the bits, and two
 * mask-and-shift loops count the leading and trailing zeros.
 *
 * Source: written for evotest; the counting loop is Kernighan's (K&R, exercise 2-9).
 * Signature: int bitcount(unsigned int x)
 *   Returns 0 (x == 0), 1 (all ones), 2 (a power of two), 3 (one run of ones, e.g. 0x00ff0000),
 *   4 (upper and lower halves equal), 5 (odd parity), 6 (even parity).
 * Inputs and ranges: x over the whole unsigned int range.
 * evotest options: none.
 *
 * Branch sites (evotest sites): 9 sites, 18 outcomes (a br or select site has outcomes
 *   [true, false]):
 *   line 47:32   v != 0                      (Kernighan loop)
 *   line 49:14   ones == 0
 *   line 51:14   ones == 32
 *   line 53:48   x & m == 0                  (leading-zero loop)
 *   line 55:39   x & m == 0                  (trailing-zero loop)
 *   line 57:14   ones == 1
 *   line 59:29   (lead + ones) + trail == 32
 *   line 61:23   x & 65535 == x >> 16
 *   line 63:18   ones % 2 == 1
 * Feasible outcomes: 18 of 18. None is infeasible (both zero-count loops stop, because x != 0
 *   by then).
 *   Examples: 0 → 0; 0xffffffff → 1; 0x80 → 2; 0x00ff0000 and 0xfffffffe → 3; 0x00050005 → 4;
 *   0x7 → 3, 0x13 → 5, 0x1001 → 6. For uniform x the rare outcomes are `ones == 0` and
 *   `ones == 32` → true (2^-32 each), `ones == 1` → true (2^-27), one run (495 words are runs
 *   of 2..31 bits) and equal halves (2^-16).
 * Checked by: examples/numeric/check/check.sh bitcount (driver bitcount_check.c): clang-22
 *   coverage build, llvm-cov-22 show --show-branches=count, over every word below 2^22, every
 *   contiguous run and its complement, every word with one or two set bits, every word with
 *   equal halves, and 10 million random words. Every outcome was taken. Results were compared
 *   with an independent oracle (the compiler's popcount, clz and ctz builtins).
 */
#define B_ZERO 0
#define B_ALL_ONES 1
#define B_POWER_OF_TWO 2
#define B_ONE_RUN 3        /* the set bits form one contiguous run, e.g. 0x00ff0000 */
#define B_SAME_HALVES 4    /* the upper and lower 16 bits are equal */
#define B_ODD_PARITY 5
#define B_EVEN_PARITY 6

int bitcount(unsigned int x)
{
    int ones = 0, lead = 0, trail = 0;
    for (unsigned int v = x; v != 0; v &= v - 1) /* Kernighan: clear the lowest set bit */
        ones++;
    if (ones == 0)
        return B_ZERO;
    if (ones == 32)
        return B_ALL_ONES;
    for (unsigned int m = 0x80000000u; (x & m) == 0; m >>= 1) /* leading zeros */
        lead++;
    for (unsigned int m = 1u; (x & m) == 0; m <<= 1) /* trailing zeros */
        trail++;
    if (ones == 1)
        return B_POWER_OF_TWO;
    if (lead + ones + trail == 32)
        return B_ONE_RUN;
    if ((x & 0xffffu) == (x >> 16))
        return B_SAME_HALVES;
    if (ones % 2 == 1)
        return B_ODD_PARITY;
    return B_EVEN_PARITY;
}
