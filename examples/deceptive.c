/*
 * deceptive.c: the target needs inverse(x) == 0, and inverse(x) is 0 only for x == 0 (it
 * returns 0 instead of dividing by zero); elsewhere 1/x shrinks as |x| grows, so the branch
 * distance |inverse(x)| leads the search away from 0. Written afresh for evotest from the
 * description of Fig. 2 in McMinn & Holcombe 2004, §3 and §6 ("Deceptive"); the figure's listing is not in
 * the text.
 *
 * Source: McMinn & Holcombe (2004), "Hybridizing Evolutionary Testing with the Chaining
 *         Approach", §3 (Fig. 2) and §6.
 * Signature: int deceptive(double x)
 * Inputs and ranges as the paper used them: x in [-50000, 50000] at precision 0.001 (about 1e8
 *         values).
 * evotest options: --range x=-50000..50000@0.001
 * Returns 1 when the target was reached, else 0.
 * Target branch: line 38, `inverse(x) == 0` → true   (the paper's node a; the target is node b)
 *
 * Branch sites (evotest sites): 2 sites, 4 outcomes (deceptive and the static helper inverse):
 *   line 38  inverse(x) == 0.0   (target)     [true, false]
 *   line 31  x == 0.0            (in inverse) [true, false]
 * Feasible outcomes: 4 of 4. None is infeasible.
 *   Hardest: line 38 → true (and line 31 → true): only x = 0 (or -0.0), one value of the
 *   100,000,001 on the grid. For every other x in the range, |1/x| >= 2e-5, never 0.
 * Checked by: a throwaway driver under clang-22 -fprofile-instr-generate -fcoverage-mapping,
 *   llvm-cov-22 show -show-branches=count, over every grid point k/1000 for k in
 *   [-50000000, 50000000] (only k = 0 takes the true outcomes), plus -0.0.
 */

/* The multiplicative inverse of x, or 0 when x is 0 (to avoid dividing by zero). */
static double inverse(double x)
{
    if (x == 0)
        return 0;
    return 1 / x;
}

int deceptive(double x)
{
    if (inverse(x) == 0)
        return 1; /* target */
    return 0;
}
