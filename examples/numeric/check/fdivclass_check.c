#include "check.h"
#include <float.h>

int fdivclass(float num, float den);

/* independent oracle: fpclassify of the single-precision quotient */
static int oracle(float num, float den)
{
    if (isnan(num) || isnan(den))
        return -1;
    if (den == 0)
        return num == 0 ? -2 : 0;
    volatile float q = num / den;
    switch (fpclassify(q)) {
    case FP_NAN:
        return -1; /* inf / inf */
    case FP_ZERO:
        return num == 0 ? 1 : 2;
    case FP_INFINITE:
        return 3;
    case FP_SUBNORMAL:
        return 4;
    default:
        return q == 1 ? 5 : 6;
    }
}

static void one(float n, float d) { EXPECT(fdivclass(n, d), oracle(n, d), "(%a, %a)", n, d); }

int main(void)
{
    static const float sp[] = {NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 1.0f, -1.0f, 2.0f, 3.0f, FLT_MAX, -FLT_MAX,
                               FLT_MIN, 1e-45f, 1e-30f, 1e30f, 0.1f};
    enum { NS = sizeof sp / sizeof *sp };
    for (int a = 0; a < NS; a++)
        for (int b = 0; b < NS; b++)
            one(sp[a], sp[b]);
    for (long i = 0; i < 4000000; i++) {
        one(rnd_float_bits(), rnd_float_bits());
        one((float)rnd_uniform(-100, 100), (float)rnd_uniform(-100, 100));
        one(sp[rnd64() % NS], rnd_float_bits());
        one(rnd_float_bits(), sp[rnd64() % NS]);
    }
    return report("fdivclass");
}
