/*
 * flag_assignment.c: the target needs a flag that is set only when the first input is zero, so
 * the target's branch sees a flag (a plateau), not the input. Written afresh for evotest from
 * the description in McMinn & Holcombe 2004, §6 ("Flag Assignment"); the paper gives no listing.
 *
 * Source: McMinn & Holcombe (2004), "Hybridizing Evolutionary Testing with the Chaining
 *         Approach", §6.
 * Signature: int flag_assignment(double a, double b)
 * Inputs and ranges as the paper used them: two doubles, each in [-50000, 50000] at precision
 *         0.001 (search space about 1e16). The second input takes part in no branch: the paper
 *         describes only the flag's dependence on the first; b is a free dimension of the
 *         search space, as there.
 * evotest options: --range a=-50000..50000@0.001 --range b=-50000..50000@0.001
 * Returns 1 when the target was reached, else 0.
 * Target branch: line 35, `flag` → true
 *
 * Branch sites (evotest sites): 2 sites, 4 outcomes:
 *   line 33  a == 0.0                 [true, false]
 *   line 35  flag != 0   (target)     [true, false]
 * Feasible outcomes: 4 of 4. None is infeasible.
 *   Hardest: line 35 → true (with line 33 → true): only a = 0 (or -0.0), any b, e.g.
 *   (a, b) = (0, 1234.5); 1 grid value of a in 100,000,001.
 * Checked by: a throwaway driver under clang-22 -fprofile-instr-generate -fcoverage-mapping,
 *   llvm-cov-22 show -show-branches=count, over every grid value of a (b random), plus
 *   a = -0.0 and the bounds.
 */

int flag_assignment(double a, double b)
{
    int flag = 0;

    (void)b;
    if (a == 0)
        flag = 1;
    if (flag)
        return 1; /* target */
    return 0;
}
