/* Shared helpers of the throwaway-style verification drivers in this directory: a seeded
 * xorshift generator, random ints in a range, random doubles and floats, and a mismatch counter.
 * Each NAME_check.c is linked with ../NAME.c by check.sh under clang-22 coverage. */
#ifndef NUMERIC_CHECK_H
#define NUMERIC_CHECK_H
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd64(void)
{
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}

/* uniform in [lo, hi] (inclusive), for hi - lo < 2^63 */
static long long rnd_range(long long lo, long long hi)
{
    unsigned long long w = (unsigned long long)(hi - lo) + 1;
    return lo + (long long)(w ? rnd64() % w : rnd64());
}

static int rnd_int(void) { return (int)(uint32_t)rnd64(); }

/* a double from a uniformly random bit pattern (every exponent equally likely; NaNs and
 * infinities included) */
static double rnd_double_bits(void)
{
    uint64_t b = rnd64();
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

static float rnd_float_bits(void)
{
    uint32_t b = (uint32_t)rnd64();
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

/* uniform in [lo, hi] */
static double rnd_uniform(double lo, double hi)
{
    return lo + (hi - lo) * ((double)(rnd64() >> 11) / 9007199254740992.0);
}

static long long n_inputs, n_mismatch;

#define EXPECT(got, want, ...)                                                                  \
    do {                                                                                        \
        n_inputs++;                                                                             \
        if ((got) != (want)) {                                                                  \
            if (n_mismatch++ < 10) {                                                            \
                printf("MISMATCH got %lld want %lld: ", (long long)(got), (long long)(want));   \
                printf(__VA_ARGS__);                                                            \
                printf("\n");                                                                   \
            }                                                                                   \
        }                                                                                       \
    } while (0)

static int report(const char *name)
{
    printf("%s: %lld inputs checked against the oracle, %lld mismatches\n", name, n_inputs, n_mismatch);
    return n_mismatch != 0;
}

/* Day number of a date (astronomical year numbering) in the proleptic Gregorian calendar
 * (julian == 0) or the Julian calendar (julian == 1): the Fliegel & Van Flandern / Richards
 * style formulas, used as an independent oracle for the calendar programs. JDN 0 is
 * 1 January 4713 BC (Julian). Valid for years > -4800. */
static long long jdn(long long y, long long m, long long d, int julian)
{
    long long a = (14 - m) / 12, yy = y + 4800 - a, mm = m + 12 * a - 3;
    if (julian)
        return d + (153 * mm + 2) / 5 + 365 * yy + yy / 4 - 32083;
    return d + (153 * mm + 2) / 5 + 365 * yy + yy / 4 - yy / 100 + yy / 400 - 32045;
}

/* Inverse of jdn() for the Gregorian calendar (Richards' algorithm). */
static void gregorian_from_jdn(long long j, long long *y, long long *m, long long *d)
{
    long long f = j + 1401 + (((4 * j + 274277) / 146097) * 3) / 4 - 38;
    long long e = 4 * f + 3, g = (e % 1461) / 4, h = 5 * g + 2;
    *d = (h % 153) / 5 + 1;
    *m = ((h / 153 + 2) % 12) + 1;
    *y = e / 1461 - 4716 + (12 + 2 - *m) / 12;
}
#endif
