/*
 * quadratic.c: classifies the roots of a x^2 + b x + c = 0 for integer coefficients. Written
 * afresh for evotest from the description in Anjum & Ryan 2021 (Set 2, "Quadratic Formula (QCF)"); the
 * paper gives no listing, so the classification below (degenerate, linear, two real roots, one
 * double root, complex roots) is ours.
 *
 * Source: Anjum & Ryan 2021 (a grammar seeded with program constants for grammatical evolution,
 *         Ariadne), "Empirical Evaluation", Set 2.
 * Signature: int quadratic(int a, int b, int c)
 * Inputs and ranges: the paper used 32-bit ints. Here each coefficient is in
 *         [-1000000000, 1000000000]: the discriminant b*b - 4*a*c is computed in long long, and
 *         with |a|, |b|, |c| <= 1e9 it lies in [-4e18, 5e18], inside long long, so there is no
 *         overflow (with the whole int range 4*a*c could reach 2^64 and overflow).
 * evotest options: --range a=-1000000000..1000000000 --range b=-1000000000..1000000000
 *         --range c=-1000000000..1000000000
 * Returns QUAD_DEGENERATE (0: a = b = 0), QUAD_LINEAR (1: a = 0, b != 0), QUAD_TWO_REAL (2),
 *         QUAD_ONE_REAL (3: a double root) or QUAD_COMPLEX (4).
 *
 * Branch sites (evotest sites): 4 sites, 8 outcomes:
 *   line 46  a == 0       [true, false]
 *   line 47  b == 0       [true, false]
 *   line 52  d > 0        [true, false]
 *   line 54  d == 0       [true, false]
 * Feasible outcomes: 8 of 8. None is infeasible.
 *   Hardest: line 54 → true (b*b == 4*a*c with a != 0), e.g. (a, b, c) = (1, 2, 1) or
 *   (3, -12, 12); rare for uniform inputs (no hit in 10^7). line 46 → true needs a == 0.
 * Checked by: a throwaway driver under clang-22 -fprofile-instr-generate -fcoverage-mapping,
 *   llvm-cov-22 show -show-branches=count, over 10^7 uniform random inputs, all of
 *   [-20, 20]^3 exhaustively, the corners of the range, and the perfect squares
 *   (k, 2*k*m, k*m*m) for small k, m; the result was cross-checked against an independent
 *   classification in exact integer arithmetic.
 */

enum quadratic_kind {
    QUAD_DEGENERATE = 0,
    QUAD_LINEAR = 1,
    QUAD_TWO_REAL = 2,
    QUAD_ONE_REAL = 3,
    QUAD_COMPLEX = 4,
};

int quadratic(int a, int b, int c)
{
    long long d;

    if (a == 0) {
        if (b == 0)
            return QUAD_DEGENERATE;
        return QUAD_LINEAR;
    }
    d = (long long)b * b - 4LL * a * c;
    if (d > 0)
        return QUAD_TWO_REAL;
    if (d == 0)
        return QUAD_ONE_REAL;
    return QUAD_COMPLEX;
}
