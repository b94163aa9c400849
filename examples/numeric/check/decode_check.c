#include "check.h"

int decode(unsigned int w);

/* independent oracle: table-driven, from the fields */
static int oracle(unsigned int w)
{
    unsigned op = w >> 26, rs = w >> 21 & 31, rt = w >> 16 & 31, rd = w >> 11 & 31, sh = w >> 6 & 31, fn = w & 63;
    unsigned imm = w & 0xffff;
    if (w == 0)
        return 0;
    switch (op) {
    case 0: {
        int shift = fn == 0 || fn == 2 || fn == 3, jr = fn == 8;
        int alu = (fn >= 0x20 && fn <= 0x27) || fn == 0x2a || fn == 0x2b;
        if (shift)
            return rs ? -1 : rd ? 2 : 1;
        if (jr)
            return (rt | rd | sh) ? -1 : rs == 31 ? 3 : 4;
        if (alu)
            return sh ? -1 : rd ? 5 : 1;
        return -1;
    }
    case 2:
    case 3:
        return 6;
    case 4:
    case 5:
        if (rs == rt)
            return op == 4 ? 7 : 8;
        return imm & 0x8000 ? 9 : 10;
    case 8:
    case 9:
        return rt == 0 ? 1 : rs == 0 ? 11 : 5;
    case 15:
        return rs ? -1 : 11;
    case 0x23:
    case 0x2b:
        return imm & 3 ? 12 : op == 0x23 ? 13 : 14;
    }
    return -1;
}

static void one(unsigned int w) { EXPECT(decode(w), oracle(w), "(%#x)", w); }

int main(void)
{
    static const unsigned f5[] = {0, 1, 2, 31};
    for (unsigned op = 0; op < 64; op++) /* every opcode and function, with rs, rt, rd, shamt in {0, 1, 2, 31} */
        for (unsigned fn = 0; fn < 64; fn++)
            for (int a = 0; a < 4; a++)
                for (int b = 0; b < 4; b++)
                    for (int c = 0; c < 4; c++)
                        for (int d = 0; d < 4; d++)
                            one(op << 26 | f5[a] << 21 | f5[b] << 16 | f5[c] << 11 | f5[d] << 6 | fn);
    for (long i = 0; i < 10000000; i++)
        one((unsigned int)rnd64());
    one(0x03e00008u); /* jr $ra */
    one(0xffffffffu);
    return report("decode");
}
