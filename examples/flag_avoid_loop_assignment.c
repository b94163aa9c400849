/*
 * flag_avoid_loop_assignment.c: the target needs a flag that starts true and that a loop
 * clears for every non-zero element, so all ten elements must be zero. Written for evotest
 * after the listing in Fig. 3 of McMinn & Holcombe 2004 (node labels a-f as comments).
 *
 * Source: McMinn & Holcombe (2004), "Hybridizing Evolutionary Testing with the Chaining
 *         Approach", §3 (Fig. 3) and §6 ("Flag Avoid Loop Assignment").
 * Signature: int flag_avoid_loop_assignment(int a[10])
 *         (the figure's function returns void; this one returns whether the target was reached)
 * Inputs and ranges as the paper used them: ten ints, each in [-15000, 15000] (search space
 *         about 6e44).
 * evotest options: --array a=10 --range a=-15000..15000
 * Returns 1 when the target (node f) was reached, else 0.
 * Target branch: line 38, `flag` → true   (the paper's node e; the target is node f)
 *
 * Branch sites (evotest sites): 3 sites, 6 outcomes:
 *   line 34  i < 10        (loop condition, node c)  [true, false]
 *   line 35  a[i] != 0     (node c's body test)      [true, false]
 *   line 38  flag != 0     (node e, target)          [true, false]
 * Feasible outcomes: 6 of 6. None is infeasible.
 *   Hardest: line 38 → true: all ten elements zero, a = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, the
 *   only such input of about 6e44 (probability 1.7e-45 for a uniform array). (line 35 → false
 *   needs just one zero element.)
 * Checked by: a throwaway driver under clang-22 -fprofile-instr-generate -fcoverage-mapping,
 *   llvm-cov-22 show -show-branches=count, over 10^6 random arrays, arrays with 9 zeros and one
 *   non-zero element at each position, the all-zero array and the bounds.
 */

int flag_avoid_loop_assignment(int a[10])
{
    int flag = 1;                /* node a */
    int i;                       /* node b */

    for (i = 0; i < 10; i++) {   /* node c */
        if (a[i] != 0)
            flag = 0;            /* node d */
    }
    if (flag)                    /* node e */
        return 1;                /* node f: target */
    return 0;
}
