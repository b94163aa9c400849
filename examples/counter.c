/*
 * counter.c: the target needs at least half of ten array elements to be zero; the zeros are
 * counted in a loop, so the target's condition is on a counter, not on the inputs. Written
 * afresh for evotest from the description in McMinn & Holcombe 2004, §6 ("Counter").
 *
 * Source: McMinn & Holcombe (2004), "Hybridizing Evolutionary Testing with the Chaining
 *         Approach", §6; like Fig. 3 (flag_avoid_loop_assignment) with a counter for the flag.
 * Signature: int counter(int a[10])
 * Inputs and ranges as the paper used them: ten ints, each in [-15000, 15000] (search space
 *         about 6e44).
 * evotest options: --array a=10 --range a=-15000..15000
 * Returns 1 when the target was reached, else 0.
 * Target branch: line 36, `count >= 5` → true
 *
 * Branch sites (evotest sites): 3 sites, 6 outcomes:
 *   line 32  i < 10        (loop condition)   [true, false]
 *   line 33  a[i] == 0                        [true, false]
 *   line 36  count >= 5    (target)           [true, false]
 * Feasible outcomes: 6 of 6. None is infeasible.
 *   Hardest: line 36 → true, e.g. a = {0, 0, 0, 0, 0, 1, 2, 3, 4, 5} (five zeros; a uniformly
 *   random array has at least five zeros with probability about 1.0e-20).
 * Checked by: a throwaway driver under clang-22 -fprofile-instr-generate -fcoverage-mapping,
 *   llvm-cov-22 show -show-branches=count, over 10^6 random arrays, the all-zero array, arrays
 *   with exactly 4, 5 and 10 zeros and the bounds -15000 and 15000.
 */

int counter(int a[10])
{
    int count = 0;
    int i;

    for (i = 0; i < 10; i++) {
        if (a[i] == 0)
            count++;
    }
    if (count >= 5)
        return 1; /* target */
    return 0;
}
