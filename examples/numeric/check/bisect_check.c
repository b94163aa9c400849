#include "check.h"

int bisect(double lo, double hi, double c);

/* Oracle for the argument checks and the bracket test (restated; the bracket test is the
 * program's definition: f(lo) and f(hi) not both negative and not both non-negative, where a NaN
 * counts as non-negative), and a check of positive results k with moderate inputs against
 * cbrt(): the root lies in [lo, hi], and either the last bracket, of width (hi - lo) / 2^(k-1),
 * is below the tolerance or the root is the k-th midpoint (a dyadic point lo + j (hi - lo) / 2^k
 * with odd j, up to the rounding of cbrt() and of the cube: |t - j| < 1e-4). */
static int pre(double lo, double hi, double c)
{
    if (isnan(lo) || isnan(hi) || isnan(c))
        return -1;
    if (!(lo < hi))
        return -2;
    double flo = lo * lo * lo - c, fhi = hi * hi * hi - c;
    if (flo == 0 || fhi == 0)
        return 0;
    int neg_lo = flo < 0, neg_hi = fhi < 0;
    if (neg_lo ? neg_hi : !neg_hi)
        return -3;
    return 1; /* goes on to bisect */
}

static long hist[6];

static void one(double lo, double hi, double c)
{
    int r = bisect(lo, hi, c), p = pre(lo, hi, c);
    hist[r >= 0 ? (r > 0 ? 5 : 4) : r + 4]++;
    if (p <= 0)
        EXPECT(r, p, "(%a, %a, %a)", lo, hi, c);
    else {
        EXPECT(r != 0 && r >= -4 && r != -1 && r != -2 && r != -3, 1, "(%a, %a, %a) -> %d", lo, hi, c, r);
        if (r > 0 && fabs(lo) < 1e6 && fabs(hi) < 1e6 && fabs(c) < 1e12) {
            double w = (hi - lo) / ldexp(1.0, r - 1), root = cbrt(c);
            double t = (root - lo) / (hi - lo) * ldexp(1.0, r);
            int in = root >= lo - 1e-9 && root <= hi + 1e-9;
            int small = w < 2e-9 * (1 + 1e-6), midpoint = fabs(t - nearbyint(t)) < 1e-4;
            EXPECT(in && (small || midpoint), 1, "bracket (%a, %a, %a) -> %d", lo, hi, c, r);
        }
    }
}

int main(void)
{
    static const double sp[] = {NAN,  INFINITY, -INFINITY, 0.0,    -0.0,  1.0,    -1.0, 2.0,
                                8.0,  -8.0,     27.0,      1e-300, 1e300, -1e300, 1e100};
    enum { NS = sizeof sp / sizeof *sp };
    for (int a = 0; a < NS; a++)
        for (int b = 0; b < NS; b++)
            for (int c = 0; c < NS; c++)
                one(sp[a], sp[b], sp[c]);
    for (long i = 0; i < 2000000; i++) {
        one(rnd_double_bits(), rnd_double_bits(), rnd_double_bits());
        one(rnd_uniform(-100, 0), rnd_uniform(0, 100), rnd_uniform(-1e5, 1e5));
        one(rnd_uniform(-1e30, 0), rnd_uniform(0, 1e30), rnd_uniform(-10, 10));
        double x = rnd_uniform(-20, 20);
        one(x, x + rnd_uniform(0, 3e-9), x * x * x); /* tiny brackets */
        long long r = rnd_range(-5, 5) * rnd_range(-5, 5) * rnd_range(-5, 5);
        one((double)rnd_range(-10, 0), (double)rnd_range(1, 10), (double)r);
    }
    printf("results NO_CONVERGENCE, NO_BRACKET, EMPTY, NAN, 0, k > 0: %ld %ld %ld %ld %ld %ld\n",
           hist[0], hist[1], hist[2], hist[3], hist[4], hist[5]);
    return report("bisect");
}
