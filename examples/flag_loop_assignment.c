/*
 * flag_loop_assignment.c: the target needs a flag that a loop sets when one or more of ten
 * array elements is zero. Written afresh for evotest from the description in McMinn & Holcombe 2004, §6
 * ("Flag Loop Assignment"): the program of Fig. 3 with the flag's role inverted (set inside the
 * loop rather than cleared).
 *
 * Source: McMinn & Holcombe (2004), "Hybridizing Evolutionary Testing with the Chaining
 *         Approach", §6.
 * Signature: int flag_loop_assignment(int a[10])
 * Inputs and ranges as the paper used them: ten ints, each in [-15000, 15000] (search space
 *         about 6e44).
 * evotest options: --array a=10 --range a=-15000..15000
 * Returns 1 when the target was reached, else 0.
 * Target branch: line 38, `flag` → true
 *
 * Branch sites (evotest sites): 3 sites, 6 outcomes:
 *   line 34  i < 10        (loop condition)   [true, false]
 *   line 35  a[i] == 0                        [true, false]
 *   line 38  flag != 0     (target)           [true, false]
 * Feasible outcomes: 6 of 6. None is infeasible.
 *   Hardest: line 38 → true (with line 35 → true): some element must be 0, e.g.
 *   a = {5, 5, 5, 0, 5, 5, 5, 5, 5, 5}; a uniformly random array has a zero with probability
 *   about 3.3e-4.
 * Checked by: a throwaway driver under clang-22 -fprofile-instr-generate -fcoverage-mapping,
 *   llvm-cov-22 show -show-branches=count, over 10^6 random arrays, arrays with a single zero
 *   at each position, the all-zero array and the bounds.
 */

int flag_loop_assignment(int a[10])
{
    int flag = 0;
    int i;

    for (i = 0; i < 10; i++) {
        if (a[i] == 0)
            flag = 1;
    }
    if (flag)
        return 1; /* target */
    return 0;
}
