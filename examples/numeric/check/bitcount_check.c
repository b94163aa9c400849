#include "check.h"

int bitcount(unsigned int x);

/* independent oracle: the compiler's popcount/clz/ctz builtins */
static int oracle(unsigned int x)
{
    if (x == 0)
        return 0;
    int ones = __builtin_popcount(x);
    if (ones == 32)
        return 1;
    if (ones == 1)
        return 2;
    if (__builtin_clz(x) + ones + __builtin_ctz(x) == 32)
        return 3;
    if ((x & 0xffffu) == (x >> 16))
        return 4;
    return ones & 1 ? 5 : 6;
}

static void one(unsigned int x) { EXPECT(bitcount(x), oracle(x), "(%#x)", x); }

int main(void)
{
    for (unsigned int x = 0; x < (1u << 22); x++) /* every word below 2^22 */
        one(x);
    for (int i = 0; i < 32; i++) /* every contiguous run, and every word with one or two bits */
        for (int j = i; j < 32; j++) {
            unsigned int run = (j == 31 ? ~0u : (1u << (j + 1)) - 1) & ~((1u << i) - 1);
            one(run);
            one(~run);
            one((1u << i) | (1u << j));
        }
    for (unsigned int h = 0; h < 65536; h++) /* equal halves */
        one(h << 16 | h);
    for (long i = 0; i < 10000000; i++)
        one((unsigned int)rnd64());
    one(~0u);
    return report("bitcount");
}
