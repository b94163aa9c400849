/*
 * check_isbn.c: checks that a string is a valid ISBN-10: ten digits, the last of which may be
 * X (ten), optionally separated by single hyphens or spaces, with the ISBN-10 checksum
 * (sum of position * digit, positions 1..10, divisible by 11). Written afresh for evotest
 * from the description in Anjum & Ryan 2021 (Set 2, "check_ISBN", a validity checker from bibclean
 * 2.08); the paper gives no listing and bibclean's code was not used.
 *
 * Source: Anjum & Ryan 2021 (a grammar seeded with program constants for grammatical evolution,
 *         Ariadne), "Empirical Evaluation", Set 2.
 * Signature: int check_isbn(const char *isbn)
 * Inputs and ranges: a NUL-terminated string of 0..13 printable ASCII characters (32..126);
 *         13 is the length of a hyphenated ISBN-10 such as "0-201-53082-1". The paper mapped
 *         32-bit ints onto strings with a modulo step (not described).
 * evotest options: --string isbn=13
 * Returns 1 for a valid ISBN-10, else 0.
 *
 * Branch sites (evotest sites): 15 sites, 30 outcomes:
 *   line 47  *p != 0       (loop condition)
 *   line 48  *p >= '0'     line 48  *p <= '9'
 *   line 49  n == 10       (an eleventh digit)
 *   line 53  *p == 'X'     line 53  *p == 'x'
 *   line 54  n != 9        (X only as the tenth character)
 *   line 58  *p == '-'     line 58  *p == ' '
 *   line 60  p == isbn     line 60  p[1] == 0      line 60  p[-1] == '-'   line 60  p[-1] == ' '
 *   line 66  n != 10       line 68  sum % 11 != 0            (each site [true, false])
 * Feasible outcomes: 30 of 30 with the printable alphabet. None is infeasible.
 *   Hardest: line 68 → false (a valid ISBN), e.g. "0-201-53082-1" or "080442957X";
 *   line 49 → true needs eleven digits, e.g. "01234567890"; line 54 → false needs X after
 *   nine digits, e.g. "123456789X"; line 60 `p[-1] == ' '` → true e.g. "1 -2".
 *   With the narrower alphabet 0-9X- 5 outcomes become infeasible (25 of 30): line 53
 *   `*p == 'x'` → true, line 58 `*p == '-'` → false, line 58 `*p == ' '` → true and → false
 *   (the only character that gets past 'X' and 'x' is '-') and line 60 `p[-1] == ' '` → true.
 * Checked by: a throwaway driver under clang-22 -fprofile-instr-generate -fcoverage-mapping,
 *   llvm-cov-22 show -show-branches=count, over 10^7 random strings (length 0..13, uniform
 *   over the printable alphabet and over "0123456789X- x"), every string of length <= 5 over
 *   "09Xx -a", and hand-picked ISBNs; the results were compared with an independent checker
 *   (strip separators after checking their placement, then the checksum). A second run over
 *   the alphabet 0-9X- alone left exactly the 5 outcomes above untaken.
 */

int check_isbn(const char *isbn)
{
    int n = 0;   /* digits seen, the X included */
    int sum = 0; /* sum of position * digit value */
    const char *p;

    for (p = isbn; *p != '\0'; p++) {
        if (*p >= '0' && *p <= '9') {
            if (n == 10)
                return 0; /* more than ten digits */
            n++;
            sum += n * (*p - '0');
        } else if (*p == 'X' || *p == 'x') {
            if (n != 9)
                return 0; /* X stands only for a check digit of ten */
            n++;
            sum += n * 10;
        } else if (*p == '-' || *p == ' ') {
            /* a separator: not first, not last, not after another separator */
            if (p == isbn || p[1] == '\0' || p[-1] == '-' || p[-1] == ' ')
                return 0;
        } else {
            return 0; /* a character that has no place in an ISBN */
        }
    }
    if (n != 10)
        return 0;
    if (sum % 11 != 0)
        return 0;
    return 1;
}
