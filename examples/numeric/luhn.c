/*
 * luhn.c: Luhn's check of a 16-digit card number held in an int array, digit by digit from
 * the left (so the digits to double are those at even indices), after checking every digit;
 * valid numbers are then sorted by their issuer prefix (4: Visa; 51..55: Mastercard).
 *
 * Source: written for evotest; H. P. Luhn's checksum (US patent 2,950,048, 1960), as in
 *   ISO/IEC 7812. A checksum over a small fixed-length array, like the ISBN and ISSN subjects of
 *   Anjum & Ryan 2021 (examples/check_isbn.c), but over ints rather than a string.
 * Signature: int luhn(const int *digits)       (digits[0..15], digits[15] the check digit)
 *   Returns -1 (a digit outside 0..9), 0 (checksum wrong), 1 valid, 2 valid Visa, 3 valid
 *   Mastercard.
 * Inputs and ranges: an array of 16 ints, each in [-1, 10]: one step past the digit range on
 *   each side, so that each validity check can fail (with the whole int range a valid digit has
 *   probability 10/2^32).
 * evotest options: --array digits=16 --range digits=-1..10
 *
 * Branch sites (evotest sites): 10 sites, 20 outcomes (a br or select site has outcomes
 *   [true, false]):
 *   line 52:23   i < 16                      (digit loop)
 *   line 54:15   d < 0
 *   line 54:24   d > 9
 *   line 56:19   i % 2 == 0
 *   line 58:19   d > 9                       (after doubling)
 *   line 63:18   sum % 10 != 0
 *   line 65:19   digits[0] == 4
 *   line 67:19   digits[0] == 5
 *   line 67:37   digits[1] >= 1
 *   line 67:55   digits[1] <= 5
 * Feasible outcomes: 20 of 20. None is infeasible.
 *   `i < 16` → false needs all 16 digits valid ((10/12)^16, about 5.4%, of uniform arrays);
 *   `sum % 10 != 0` → false then needs the right check digit (1 in 10). Examples:
 *   4539578763621486 → 2, 5500000000000004 → 3, 5600000000000003 → 1 by `digits[1] <= 5` →
 *   false, 5000000000000009 → 1 by `digits[1] >= 1` → false, 0000000000000000 → 1,
 *   4000000000000001 → 0; a -1 or 10 anywhere → -1. `d > 9` after doubling needs a digit of 5
 *   or more at an even index.
 * Checked by: examples/numeric/check/check.sh luhn (driver luhn_check.c): clang-22 coverage
 *   build, llvm-cov-22 show --show-branches=count, over 3 million random arrays in the declared
 *   range, 3 million of valid digits, 1 million with the prefix drawn from 3..6, 0..6 and the
 *   check digit made right, and one bad digit (-1..10) at each position. Every outcome was
 *   taken. Results were compared with an independent oracle (Luhn's rule as usually stated,
 *   from the rightmost digit leftwards, summing the digits of the doubled values).
 */
#define LUHN_BAD_DIGIT (-1)
#define LUHN_INVALID 0
#define LUHN_VALID 1
#define LUHN_VISA 2
#define LUHN_MASTERCARD 3

int luhn(const int *digits)
{
    int sum = 0;
    for (int i = 0; i < 16; i++) {
        int d = digits[i];
        if (d < 0 || d > 9)
            return LUHN_BAD_DIGIT;
        if (i % 2 == 0) { /* every second digit from the right, the check digit not included */
            d *= 2;
            if (d > 9)
                d -= 9;
        }
        sum += d;
    }
    if (sum % 10 != 0)
        return LUHN_INVALID;
    if (digits[0] == 4)
        return LUHN_VISA;
    if (digits[0] == 5 && digits[1] >= 1 && digits[1] <= 5)
        return LUHN_MASTERCARD;
    return LUHN_VALID;
}
