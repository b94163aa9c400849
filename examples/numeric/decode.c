/*
 * decode.c: classifies a 32-bit MIPS-I-like instruction word by its fields: the opcode (bits
 * 31..26) and, for R-type words, the function field (bits 5..0) select nested switches; the
 * register fields, the shift amount and the sign and low bits of the immediate decide the rest.
 *
 * Source: written for evotest; the encodings (opcode and function numbers, jr $ra, the
 *   sign-extended 16-bit immediate, word alignment of lw/sw offsets) are the MIPS-I ones.
 * Signature: int decode(unsigned int w)
 *   Returns -1 illegal, 0 the all-zero nop, 1 no effect (writes $0), 2 shift, 3 jr $ra, 4 jr,
 *   5 ALU, 6 jump, 7 beq r, r (always taken), 8 bne r, r (never taken), 9 backward branch,
 *   10 forward branch, 11 load immediate (li or lui), 12 misaligned offset, 13 lw, 14 sw.
 * Inputs and ranges: w over the whole unsigned int range.
 * evotest options: none.
 *
 * Branch sites (evotest sites): 19 sites, 60 outcomes (a br or select site has outcomes
 *   [true, false]):
 *   line 77:5    switch op
 *                    [default, case 0, case 2, case 3, case 4, case 5, case 8, case 9, case 15,
 *                    case 35, case 43] (opcode)
 *   line 79:15   w == 0
 *   line 81:9    switch funct
 *                    [default, case 0, case 2, case 3, case 8, case 32, case 33, case 34, case 35,
 *                    case 36, case 37, case 38, case 39, case 42, case 43] (R-type function)
 *   line 85:20   rs != 0
 *   line 87:20   rd == 0
 *   line 91:20   rt != 0
 *   line 91:31   rd != 0
 *   line 91:45   shamt != 0
 *   line 93:20   rs == 31
 *   line 106:23  shamt != 0
 *   line 108:20  rd == 0
 *   line 119:16  rs == rt
 *   line 120:23  op == 4                     (a select) (the ?: of beq/bne)
 *   line 121:17  imm < 0
 *   line 126:16  rt == 0
 *   line 128:16  rs == 0
 *   line 132:16  rs != 0
 *   line 137:23  imm & 3 != 0
 *   line 139:19  op == 35                    (a select) (the ?: of lw/sw)
 * Feasible outcomes: 60 of 60. None is infeasible.
 *   Examples: 0 → 0 (`w == 0` → true, 2^-32 for uniform w); 0x00200000 (sll with rs = 1) → -1;
 *   0x00010000 (sll $0, $1, 0) → 1; 0x00010800 → 2; 0x03e00008 (jr $ra) → 3; 0x00200008 → 4;
 *   0x00010008 (jr with rt = 1) → -1; 0x00000820 (add $1, $0, $0) → 5, with shamt = 1
 *   (0x00000860) → -1; 0x08000000 → 6; 0x10000000 (beq $0, $0) → 7; 0x14000000 → 8;
 *   0x1020ffff (beq $1, $0, -1) → 9; 0x10200001 → 10; 0x20000000 (addi $0) → 1;
 *   0x20010005 (li $1, 5) → 11; 0x20210005 → 5; 0x3c200000 (lui with rs = 1) → -1;
 *   0x3c010001 → 11; 0x8c000002 → 12; 0x8c000004 → 13; 0xac000004 → 14; 0x04000000 → -1.
 *   Every opcode case is taken by 1/64 of uniform words and every function case by 1/4096.
 * Checked by: examples/numeric/check/check.sh decode (driver decode_check.c): clang-22 coverage
 *   build, llvm-cov-22 show --show-branches=count, over every opcode and function field with
 *   rs, rt, rd and shamt each in {0, 1, 2, 31} (1,048,576 words) and 10 million random words.
 *   Every outcome was taken. Results were compared with an independent table-driven oracle.
 */
#define D_ILLEGAL (-1)
#define D_NOP 0            /* the all-zero word, sll $0, $0, 0 */
#define D_NO_EFFECT 1      /* a legal instruction that writes register $0 */
#define D_SHIFT 2
#define D_RETURN 3         /* jr $ra */
#define D_JUMP_REG 4
#define D_ALU 5
#define D_JUMP 6
#define D_ALWAYS_TAKEN 7   /* beq r, r */
#define D_NEVER_TAKEN 8    /* bne r, r */
#define D_BACKWARD 9
#define D_FORWARD 10
#define D_LOAD_IMM 11      /* li (addi(u) from $0) or lui */
#define D_MISALIGNED 12
#define D_LOAD 13
#define D_STORE 14

int decode(unsigned int w)
{
    unsigned int op = w >> 26;
    unsigned int rs = (w >> 21) & 31u, rt = (w >> 16) & 31u, rd = (w >> 11) & 31u;
    unsigned int shamt = (w >> 6) & 31u, funct = w & 63u;
    int imm = (short)(w & 0xffffu); /* the sign-extended immediate */
    switch (op) {
    case 0x00: /* R-type: the function field selects the operation */
        if (w == 0)
            return D_NOP;
        switch (funct) {
        case 0x00: /* sll */
        case 0x02: /* srl */
        case 0x03: /* sra */
            if (rs != 0)
                return D_ILLEGAL;
            if (rd == 0)
                return D_NO_EFFECT;
            return D_SHIFT;
        case 0x08: /* jr */
            if (rt != 0 || rd != 0 || shamt != 0)
                return D_ILLEGAL;
            if (rs == 31)
                return D_RETURN;
            return D_JUMP_REG;
        case 0x20: /* add */
        case 0x21: /* addu */
        case 0x22: /* sub */
        case 0x23: /* subu */
        case 0x24: /* and */
        case 0x25: /* or */
        case 0x26: /* xor */
        case 0x27: /* nor */
        case 0x2a: /* slt */
        case 0x2b: /* sltu */
            if (shamt != 0)
                return D_ILLEGAL;
            if (rd == 0)
                return D_NO_EFFECT;
            return D_ALU;
        default:
            return D_ILLEGAL;
        }
    case 0x02: /* j */
    case 0x03: /* jal */
        return D_JUMP;
    case 0x04: /* beq */
    case 0x05: /* bne */
        if (rs == rt)
            return op == 0x04 ? D_ALWAYS_TAKEN : D_NEVER_TAKEN;
        if (imm < 0)
            return D_BACKWARD;
        return D_FORWARD;
    case 0x08: /* addi */
    case 0x09: /* addiu */
        if (rt == 0)
            return D_NO_EFFECT;
        if (rs == 0)
            return D_LOAD_IMM;
        return D_ALU;
    case 0x0f: /* lui */
        if (rs != 0)
            return D_ILLEGAL;
        return D_LOAD_IMM;
    case 0x23: /* lw */
    case 0x2b: /* sw */
        if ((imm & 3) != 0)
            return D_MISALIGNED;
        return op == 0x23 ? D_LOAD : D_STORE;
    default:
        return D_ILLEGAL;
    }
}
