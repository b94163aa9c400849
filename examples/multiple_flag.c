/*
 * multiple_flag.c: the target needs two flags to be true; the first is set when the first
 * input is zero, the second when the second input is zero, and the second is reset to false
 * when the second input is 1. Written afresh for evotest from the description in McMinn & Holcombe 2004,
 * §6 ("Multiple Flag"); the paper gives no listing.
 *
 * Source: McMinn & Holcombe (2004), "Hybridizing Evolutionary Testing with the Chaining
 *         Approach", §6.
 * Signature: int multiple_flag(double a, double b)
 * Inputs and ranges as the paper used them: two doubles, each in [-50000, 50000] at precision
 *         0.001 (search space about 1e16).
 * evotest options: --range a=-50000..50000@0.001 --range b=-50000..50000@0.001
 * Returns 1 when the target was reached, else 0.
 * Target branch: line 41, `flag2` → true (reached only after `flag1` → true on the same line)
 *
 * Branch sites (evotest sites): 5 sites, 10 outcomes:
 *   line 35  a == 0.0                   [true, false]
 *   line 37  b == 0.0                   [true, false]
 *   line 39  b == 1.0                   [true, false]
 *   line 41  flag1 != 0                 [true, false]
 *   line 41  flag2 != 0   (target)      [true, false]
 * Feasible outcomes: 10 of 10. None is infeasible.
 *   Hardest: line 41 `flag2` → true: a = 0 and b = 0 together, (a, b) = (0, 0), 1 grid point in
 *   about 1e16. (line 41 `flag2` → false needs a = 0 and b != 0; line 39 → true needs b = 1.)
 * Checked by: a throwaway driver under clang-22 -fprofile-instr-generate -fcoverage-mapping,
 *   llvm-cov-22 show -show-branches=count, over 10^6 random grid points and the special pairs
 *   (0, 0), (0, 1), (0, 0.001), (1, 0), (-0.0, -0.0), and the bounds.
 */

int multiple_flag(double a, double b)
{
    int flag1 = 0;
    int flag2 = 0;

    if (a == 0)
        flag1 = 1;
    if (b == 0)
        flag2 = 1;
    if (b == 1)
        flag2 = 0; /* reset */
    if (flag1 && flag2)
        return 1; /* target */
    return 0;
}
