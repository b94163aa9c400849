/*
 * fdivclass.c: the IEEE class of a single-precision quotient num / den: 0/0, a pole (x/0), NaN
 * operands or inf/inf, an exact zero, an underflow to zero, an overflow, a subnormal, exactly 1,
 * or a normal number.
 *
 * Source: written for evotest (a float parameter that must equal 0.0f: `den == 0.0f`).
 * Signature: int fdivclass(float num, float den)
 *   Returns -2 (0/0), -1 (NaN), 0 (pole), 1 zero, 2 underflow to zero, 3 overflow, 4 subnormal,
 *   5 one, 6 normal.
 * Inputs and ranges: num and den over the whole float range, with the infinities and NaN.
 * evotest options: none.
 *
 * Branch sites (evotest sites): 9 sites, 18 outcomes (the constants are FLT_MAX and
 * FLT_MIN):
 *   line 50:13   den == 0.0                  (a float input must be 0.0f)
 *   line 51:17   num == 0.0
 *   line 53:17   num != num
 *   line 58:11   q != q
 *   line 60:11   q == 0.0
 *   line 61:17   num == 0.0
 *   line 65:18   fabs(q) > 3.4028234663852886e38
 *   line 67:18   fabs(q) < 1.1754943508222875e-38
 *   line 69:11   q == 1.0
 * Feasible outcomes: 18 of 18. None is infeasible.
 *   Examples: (0, 0) → -2 (`den == 0.0` → true needs den == +-0); (NaN, 0) → -1 by `num != num`;
 *   (1, 0) → 0; (inf, inf) and (NaN, 1) → -1 by `q != q`; (0, 5) → 1; (1e-30, 1e30) and
 *   (1, inf) → 2; (1e30, 1e-30) and (inf, 1) → 3; (1e-38, 10) → 4; (3, 3) → 5; (1, 3) → 6.
 * Checked by: examples/numeric/check/check.sh fdivclass (driver fdivclass_check.c): clang-22
 *   coverage build, llvm-cov-22 show --show-branches=count, over all pairs of 16 special values
 *   (NaN, +-inf, +-0, +-1, 2, 3, +-FLT_MAX, FLT_MIN, 1e-45, 1e-30, 1e30, 0.1) and 16 million
 *   random inputs (random bit patterns, uniform in [-100, 100], a special value against a random
 *   one). Every outcome was taken. Results were compared with an independent oracle
 *   (fpclassify of the quotient).
 */
#include <float.h>
#include <math.h>

#define Q_UNDEFINED (-2) /* 0 / 0 */
#define Q_NAN (-1)       /* a NaN operand, or inf / inf */
#define Q_POLE 0         /* nonzero / 0: an infinity */
#define Q_ZERO 1         /* 0 / nonzero */
#define Q_UNDERFLOW 2    /* a nonzero numerator whose quotient rounds to zero */
#define Q_OVERFLOW 3     /* the quotient is infinite */
#define Q_SUBNORMAL 4
#define Q_ONE 5
#define Q_NORMAL 6

int fdivclass(float num, float den)
{
    if (den == 0.0f) {
        if (num == 0.0f)
            return Q_UNDEFINED;
        if (num != num)
            return Q_NAN;
        return Q_POLE;
    }
    float q = num / den;
    if (q != q)
        return Q_NAN;
    if (q == 0.0f) {
        if (num == 0.0f)
            return Q_ZERO;
        return Q_UNDERFLOW;
    }
    if (fabsf(q) > FLT_MAX)
        return Q_OVERFLOW;
    if (fabsf(q) < FLT_MIN)
        return Q_SUBNORMAL;
    if (q == 1.0f)
        return Q_ONE;
    return Q_NORMAL;
}
