/*
 * polyterms.c: a polynomial given as a (pointer, length) buffer of (coefficient, exponent) terms:
 * invalid exponents, repeated exponents, the zero polynomial, 2 as a root, monic, linear.
 *
 * Source: written for evotest (a buffer of structures, inferred from `const struct term *t, int
 *   n`; nested loops over it).
 * Signature: int polyterms(const struct term *t, int n)
 *   Returns -1 (an exponent outside 0..16), -2 (an exponent repeated), 0 (no terms, or every
 *   coefficient zero), 5 (p(2) == 0), 4 (monic and linear), 3 (monic), 1 (otherwise).
 * Inputs and ranges: 0 to 16 terms, every member over the whole int range.
 * evotest options: none (the buffer is inferred: --buffer t=n:16).
 * Feasible outcomes: all (checked by the benchmark's ground truth, `make bench-records`).
 */
struct term {
    int coef;
    int exp;
};

int polyterms(const struct term *t, int n)
{
    long long value = 0;
    int degree = -1, lead = 0;
    for (int i = 0; i < n; i++) {
        if (t[i].exp < 0 || t[i].exp > 16)
            return -1;
        for (int j = 0; j < i; j++)
            if (t[j].exp == t[i].exp)
                return -2;
        if (t[i].coef == 0)
            continue;
        if (t[i].exp > degree) {
            degree = t[i].exp;
            lead = t[i].coef;
        }
        value += (long long)t[i].coef * (1LL << t[i].exp); /* p(2) */
    }
    if (degree < 0)
        return 0;
    if (value == 0)
        return 5;
    if (lead == 1)
        return degree == 1 ? 4 : 3;
    return 1;
}
