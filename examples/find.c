/*
 * find.c: Hoare's FIND (CACM Algorithm 65). It rearranges a[0..n-1] so that a[f] holds the
 * (f+1)-th smallest element, with nothing larger on its left and nothing smaller on its right.
 * Written afresh for evotest from the description in Bueno & Jino and from Hoare's published
 * algorithm (the paper gives no listing).
 *
 * Source: Bueno & Jino (2002), §9.1 and Table 2. The paper says: an array A with N
 *   elements and an index F; nested loops; comparisons between array elements such as
 *   while (a[i] < a[f]); some paths need special inputs such as all elements equal; "If F > N the
 *   program enters an infinite loop". Table 2 gives 22 nodes and cyclomatic complexity 9. This
 *   version has 8 decisions (cyclomatic complexity 9). It ends the outer loop with a break where
 *   the paper's version apparently used a flag (it mentions if(!b)).
 * Signature: int find(int a[10], int n, int f)
 *   Indexing is 0-based, so the paper's F > N is f >= n here. The function returns a[f]. It
 *   modifies a[0..n-1] (it is a permutation of it) and never writes a[n..9].
 * Array model: a has 10 elements, but only the first n belong to the problem. This is what the
 *   paper's GA did: it encoded the maximum number of positions and passed N to the program. With
 *   f >= n, a[f] is one of the spare elements, so the paper's bug is reachable without reading
 *   out of bounds.
 * Inputs and ranges: the paper does not give ranges. We chose n in 0..10 and f in 0..9, which
 *   keep every index inside a[10], and elements in [-100, 100].
 * evotest options: --array a=10 --range a=-100..100 --range n=0..10 --range f=0..9
 *
 * Hangs (as in the paper): with f >= n the outer loop can stop making progress and loop forever.
 *   An example is n = 3, f = 5, a = {5, 6, 7, 0, 0, 0, 0, 0, 0, 0}. About 47% of the f >= n inputs
 *   tried hung this way. Run it with a timeout: evotest's --timeout records such an input
 *   as a hang and goes on. No input with f < n hangs: 3.8 million were checked, and Hoare's
 *   proof applies.
 * Memory safety: i never passes max(f, n - 1) (a[f] stops the first scan). j is kept at 0 or
 *   above by the j == 0 test, which is not in Hoare's FIND; without it, f >= n inputs would read
 *   a[-1]. With f < n the test never changes the result.
 *
 * Branch sites (evotest sites): 8 sites, 16 outcomes:
 *   line 61:14  m < ns          (outer loop)
 *   line 63:18  i <= j          (partition loop)
 *   line 64:25  a[i] < r        (scan up)
 *   line 66:22  r < a[j]        (scan down)
 *   line 67:23  j == 0          (left-end guard)
 *   line 71:19  i <= j          (swap)
 *   line 79:15  f <= j
 *   line 81:20  i <= f
 * Feasible outcomes: 16 of 16. No outcome is infeasible. The hardest is line 67:23 `j == 0` →
 *   true. It needs f >= n and every a[0..n-1] > a[f]. It returns only when n = 2, e.g.
 *   n = 2, f = 5, a = {5, 6, 0, 0, 0, 0, 0, 0, 0, 0}, which returns 0. With n >= 3 the same
 *   condition always ends in the hang above. The other 15 outcomes are all taken by f < n
 *   inputs, e.g. n = 3, f = 1, a = {1, 2, 3, ...} takes line 81:20 → false (a[f] is in
 *   place).
 * Checked by: an llvm-cov branch count, with hangs cut off by a timer (siglongjmp), over three
 *   sets: (1) every f < n input with elements in 0..2, plus 3 million random f < n inputs;
 *   (2) for n <= 5 and every f >= n, all values in 0..2 of a[0..n-1] and a[f], plus
 *   20,000 random f >= n inputs;
 *   (3) the examples above. Set (1) alone takes 15 outcomes, all but `j == 0` → true. Every
 *   f < n result was checked against sorting. A separate run of 12,000 random f >= n inputs
 *   recorded which ones take `j == 0` → true: the 825 with n = 2 all returned, and all of those
 *   with n >= 3 hung.
 *   ASan (a is a malloc'ed block of exactly 10 ints) and UBSan were clean on all of these.
 */
int find(int a[10], int n, int f)
{
    int m = 0, ns = n - 1;
    while (m < ns) {
        int r = a[f], i = m, j = ns;
        while (i <= j) {
            while (a[i] < r)
                i++;
            while (r < a[j]) {
                if (j == 0) /* not in Hoare's FIND: stops j leaving the array (only when f >= n) */
                    break;
                j--;
            }
            if (i <= j) {
                int w = a[i];
                a[i] = a[j];
                a[j] = w;
                i++;
                j--;
            }
        }
        if (f <= j)
            ns = j;
        else if (i <= f)
            m = i; /* with f >= n this can leave m unchanged: the paper's infinite loop */
        else
            break; /* j < f < i: a[f] is in its final place */
    }
    return a[f];
}
