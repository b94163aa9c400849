/*
 * ean13.c: checks an EAN-13 bar code number held in an int array: every digit in 0..9, the
 * check digit (weights 1, 3, 1, 3, ... on the first twelve), then the GS1 prefix of valid codes:
 * 978/979 Bookland (an ISBN), 977 a serial (ISSN), 000..019 a UPC-A code, 200..299 restricted
 * circulation (in-store numbers), anything else a product.
 *
 * Source: written for evotest from the GS1 General Specifications (check digit, prefixes); a
 *   checksum over a small fixed-length array, like the ISBN and ISSN subjects of Anjum & Ryan 2021.
 * Signature: int ean13(const int *digits)      (digits[0..12], digits[12] the check digit)
 *   Returns -1 (a digit outside 0..9), 0 (wrong check digit), 1 Bookland, 2 serial, 3 UPC-A,
 *   4 in-store, 5 product.
 * Inputs and ranges: an array of 13 ints, each in [-1, 10], one step past the digit range on
 *   each side.
 * evotest options: --array digits=13 --range digits=-1..10
 *
 * Branch sites (evotest sites): 13 sites, 26 outcomes (a br or select site has outcomes
 *   [true, false]):
 *   line 55:23   i < 12                      (digit loop)
 *   line 56:23   digits[i] < 0
 *   line 56:40   digits[i] > 9
 *   line 58:22   i % 2 == 0                  (the ?: of the weights)
 *   line 60:20   digits[12] < 0
 *   line 60:38   digits[12] > 9
 *   line 62:30   (10 - (sum % 10)) % 10 != digits[12]
 *   line 65:16   prefix == 978
 *   line 65:33   prefix == 979
 *   line 67:16   prefix == 977
 *   line 69:16   prefix < 20
 *   line 71:16   prefix >= 200
 *   line 71:33   prefix <= 299
 * Feasible outcomes: 26 of 26. None is infeasible.
 *   Examples: 9780201530827 → 1 (an ISBN-13), 9790000000001 → 1 by `prefix == 979`,
 *   9771234567003 → 2, 0012345678905 → 3, 2000000000008 → 4, 3000000000007 → 5 (with
 *   `prefix >= 200` → true, `prefix <= 299` → false), 1000000000009 → 5 by `prefix >= 200`
 *   → false; 9780201530828 → 0; a -1 or 10 anywhere → -1. The prefix outcomes need all 13
 *   digits valid ((10/12)^13, about 9.3%, of uniform arrays) and the right check digit (1 in 10).
 * Checked by: examples/numeric/check/check.sh ean13 (driver ean13_check.c): clang-22 coverage
 *   build, llvm-cov-22 show --show-branches=count, over 3 million random arrays in the declared
 *   range, 3 million of valid digits (half of them with a prefix from 977, 978, 979, 005, 019,
 *   200, 299, 300 and the check digit made right), and one bad digit (-1..10) at each position.
 *   Every outcome was taken. Results were compared with an independent oracle (the weighted sum
 *   of all 13 digits, weights 1, 3, ..., 1, is a multiple of 10).
 */
#define EAN_BAD_DIGIT (-1)
#define EAN_WRONG_CHECK 0
#define EAN_BOOK 1       /* 978, 979: Bookland (an ISBN) */
#define EAN_SERIAL 2     /* 977: an ISSN */
#define EAN_UPC 3        /* 000-019: a UPC-A code with a leading 0 */
#define EAN_IN_STORE 4   /* 200-299: restricted circulation */
#define EAN_PRODUCT 5

int ean13(const int *digits)
{
    int sum = 0;
    for (int i = 0; i < 12; i++) {
        if (digits[i] < 0 || digits[i] > 9)
            return EAN_BAD_DIGIT;
        sum += i % 2 == 0 ? digits[i] : 3 * digits[i]; /* weights 1, 3, 1, 3, ... */
    }
    if (digits[12] < 0 || digits[12] > 9)
        return EAN_BAD_DIGIT;
    if ((10 - sum % 10) % 10 != digits[12])
        return EAN_WRONG_CHECK;
    int prefix = digits[0] * 100 + digits[1] * 10 + digits[2];
    if (prefix == 978 || prefix == 979)
        return EAN_BOOK;
    if (prefix == 977)
        return EAN_SERIAL;
    if (prefix < 20)
        return EAN_UPC;
    if (prefix >= 200 && prefix <= 299)
        return EAN_IN_STORE;
    return EAN_PRODUCT;
}
