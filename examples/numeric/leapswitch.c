/*
 * leapswitch.c: whether a year is a leap year under one of three calendar rules chosen by a
 * switch: Julian (every fourth year), Gregorian (and of the century years only those divisible
 * by 400) and Revised Julian (Milankovic, 1923: a century year is a leap year when the year
 * mod 900 is 200 or 600). Written for evotest.
 *
 * Source: written for evotest, as the modular-guard shape that issue #11 names: the outcome
 *   `year % 100 == 0` → true sits inside `year % 4 == 0` → true, and both are reached only under
 *   `case 1` of the switch on `rule`. Branch distance gives |year % 4| and |year % 100|, which say
 *   little about how to change year.
 * Signature: int leapswitch(int rule, int year)
 *   Returns 1 (leap), 0 (common) or -1 for an unknown rule. Years use astronomical numbering
 *   (year 0 is 1 BC); the rules are applied proleptically to every int.
 * Inputs and ranges: rule and year over the whole int range (no overflow: the only operations
 *   are %, by positive constants, and r + 900 on r in (-900, 0)).
 * evotest options: none.
 *
 * Branch sites (evotest sites): 10 sites, 22 outcomes (a br or select site has outcomes
 *   [true, false]):
 *   line 47:5    switch rule                 [default, case 0, case 1, case 2]
 *   line 49:22   year % 4 == 0               (case 0)
 *   line 53:22   year % 4 == 0               (case 1)
 *   line 54:28   year % 100 == 0             (case 1, inside the above)
 *   line 55:32   year % 400 == 0             (case 1)
 *   line 63:22   year % 4 != 0               (case 2)
 *   line 65:24   year % 100 != 0             (case 2)
 *   line 69:19   r < 0                       (case 2: floor remainder)
 *   line 71:19   r == 200                    (case 2)
 *   line 71:31   r == 600                    (case 2)
 * Feasible outcomes: 22 of 22. None is infeasible.
 *   Examples: rule 1 with year 2000 (leap), 1900 (common), 2004 (leap), 2001 (common); rule 2
 *   with year 2100 (r = 300, common), 2000 (r = 200), 2400 (r = 600), -700 (r = -700 → 200 after
 *   `r < 0` → true). Uniform random inputs reach case 0, 1 or 2 with probability 2^-32 each.
 * Checked by: examples/numeric/check/check.sh leapswitch (driver leapswitch_check.c): clang-22
 *   -fprofile-instr-generate -fcoverage-mapping, llvm-cov-22 show --show-branches=count, over
 *   every year in [-20000, 20000] for rule in {INT_MIN, -1, 0, 1, 2, 3, 4, INT_MAX}, hand-picked
 *   years (INT_MIN, INT_MAX, 100, 200, 600, 900, -700, ...), and 4 million random inputs (half of
 *   them with a rule in 0..2). Every outcome was taken, and every result agreed with an
 *   independent oracle (divisibility through floor division in long double).
 */
#define LEAP 1
#define COMMON 0
#define BAD_RULE (-1)

int leapswitch(int rule, int year)
{
    switch (rule) {
    case 0: /* Julian: every fourth year */
        if (year % 4 == 0)
            return LEAP;
        return COMMON;
    case 1: /* Gregorian: every fourth year, but of the century years only those divisible by 400 */
        if (year % 4 == 0) {
            if (year % 100 == 0) {
                if (year % 400 == 0)
                    return LEAP;
                return COMMON;
            }
            return LEAP;
        }
        return COMMON;
    case 2: /* Revised Julian: a century year is a leap year when year mod 900 is 200 or 600 */
        if (year % 4 != 0)
            return COMMON;
        if (year % 100 != 0)
            return LEAP;
        {
            int r = year % 900;
            if (r < 0)
                r += 900; /* C's % truncates; the rule needs the floor remainder */
            if (r == 200 || r == 600)
                return LEAP;
        }
        return COMMON;
    default:
        return BAD_RULE;
    }
}
