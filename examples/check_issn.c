/*
 * check_issn.c: checks that a string is a valid ISSN: eight digits, the last of which may be
 * X (ten), with at most one hyphen, between the fourth and fifth digit ("0317-8471"), and the
 * ISSN checksum (digits weighted 8, 7, ..., 1; the sum divisible by 11). Written afresh for
 * evotest from the description in Anjum & Ryan 2021 (Set 2, "check_ISSN", a validity checker from
 * bibclean 2.08); the paper gives no listing and bibclean's code was not used.
 *
 * Source: Anjum & Ryan 2021 (a grammar seeded with program constants for grammatical evolution,
 *         Ariadne), "Empirical Evaluation", Set 2.
 * Signature: int check_issn(const char *issn)
 * Inputs and ranges: a NUL-terminated string of 0..9 printable ASCII characters (32..126);
 *         9 is the length of a hyphenated ISSN. The paper mapped 32-bit ints onto strings with
 *         a modulo step (not described).
 * evotest options: --string issn=9
 * Returns 1 for a valid ISSN, else 0.
 *
 * Branch sites (evotest sites): 12 sites, 24 outcomes:
 *   line 45  *p != 0       (loop condition)
 *   line 46  *p >= '0'     line 46  *p <= '9'
 *   line 47  n == 8        (a ninth digit)
 *   line 51  *p == 'X'     line 51  *p == 'x'
 *   line 52  n != 7        (X only as the eighth digit)
 *   line 56  *p == '-'
 *   line 57  n != 4        line 57  p[-1] == '-'   (one hyphen, after the fourth digit)
 *   line 63  n != 8        line 65  sum % 11 != 0            (each site [true, false])
 * Feasible outcomes: 24 of 24 with the printable alphabet. None is infeasible.
 *   Hardest: line 65 → false (a valid ISSN), e.g. "0317-8471" or "2434561X"; line 47 → true
 *   needs nine digits, "123456789"; line 57 `p[-1] == '-'` → true needs "1234--...".
 *   With the narrower alphabet 0-9X- 2 outcomes become infeasible (22 of 24): line 51
 *   `*p == 'x'` → true and line 56 `*p == '-'` → false (the only character that gets past 'X'
 *   and 'x' is '-').
 * Checked by: a throwaway driver under clang-22 -fprofile-instr-generate -fcoverage-mapping,
 *   llvm-cov-22 show -show-branches=count, over 10^7 random strings (length 0..9, uniform over
 *   the printable alphabet and over "0123456789X-x"), and hand-picked ISSNs; the results were
 *   compared with an independent checker. A second run over the alphabet 0-9X- alone left
 *   exactly the 2 outcomes above untaken.
 */

int check_issn(const char *issn)
{
    int n = 0;   /* digits seen, the X included */
    int sum = 0; /* sum of weight * digit value, weights 8, 7, ..., 1 */
    const char *p;

    for (p = issn; *p != '\0'; p++) {
        if (*p >= '0' && *p <= '9') {
            if (n == 8)
                return 0; /* more than eight digits */
            n++;
            sum += (9 - n) * (*p - '0');
        } else if (*p == 'X' || *p == 'x') {
            if (n != 7)
                return 0; /* X stands only for a check digit of ten */
            n++;
            sum += 10;
        } else if (*p == '-') {
            if (n != 4 || p[-1] == '-')
                return 0; /* one hyphen, between the two groups of four */
        } else {
            return 0; /* a character that has no place in an ISSN */
        }
    }
    if (n != 8)
        return 0;
    if (sum % 11 != 0)
        return 0;
    return 1;
}
