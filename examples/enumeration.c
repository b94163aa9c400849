/*
 * enumeration.c: three colour intensities are looked up in a palette of named colours, which
 * yields an enumeration value; the target is the colour "black". The branch on the enumeration
 * gives no guidance (no enumerator is "closer" to black than another). Written afresh for
 * evotest from the description in McMinn & Holcombe 2004, §3 and §6 ("Enumeration"); the paper gives no
 * listing, so the palette (the eight corners of the RGB cube) and the table lookup are ours.
 *
 * Source: McMinn & Holcombe (2004), "Hybridizing Evolutionary Testing with the Chaining
 *         Approach", §6.
 * Signature: int enumeration(int r, int g, int b)
 * Inputs and ranges as the paper used them: three ints, each in [0, 255] (about 1.6e7 inputs).
 * evotest options: --range r=0..255 --range g=0..255 --range b=0..255
 * Returns 1 for black (the target), 2 white, 3 red/green/blue, 4 yellow/cyan/magenta, 0 for a
 * colour that is not in the palette.
 * Target branch: line 70, `switch (colour_of(r, g, b))` → case COLOUR_BLACK
 *
 * Branch sites (evotest sites): 5 sites, 17 outcomes (enumeration and its static helper
 * colour_of, whose palette tests evotest prints as ?[0] == r, ?[1] == g, ?[2] == b):
 *   line 70  switch colour_of(r, g, b)  (target)  [default, case 1 .. case 8]  9 outcomes
 *   line 61  i < 8               (loop condition) [true, false]
 *   line 62  palette[i].r == r                    [true, false]
 *   line 62  palette[i].g == g                    [true, false]
 *   line 62  palette[i].b == b                    [true, false]
 * (case 1 is COLOUR_BLACK, 2 WHITE, 3 RED, 4 GREEN, 5 BLUE, 6 YELLOW, 7 CYAN, 8 MAGENTA.)
 * Feasible outcomes: 17 of 17. None is infeasible.
 *   Hardest: each switch case needs one exact input of the 16,777,216, e.g. case COLOUR_BLACK
 *   needs (r, g, b) = (0, 0, 0); COLOUR_MAGENTA needs (255, 0, 255).
 * Checked by: a throwaway driver under clang-22 -fprofile-instr-generate -fcoverage-mapping,
 *   llvm-cov-22 show -show-branches=count, exhaustively over all 256^3 inputs: every outcome
 *   is taken, and the target only by (0, 0, 0).
 */

enum colour {
    COLOUR_OTHER,
    COLOUR_BLACK,
    COLOUR_WHITE,
    COLOUR_RED,
    COLOUR_GREEN,
    COLOUR_BLUE,
    COLOUR_YELLOW,
    COLOUR_CYAN,
    COLOUR_MAGENTA,
};

struct named_colour {
    int r, g, b;
    enum colour colour;
};

static const struct named_colour palette[8] = {
    {0, 0, 0, COLOUR_BLACK},     {255, 255, 255, COLOUR_WHITE}, {255, 0, 0, COLOUR_RED},
    {0, 255, 0, COLOUR_GREEN},   {0, 0, 255, COLOUR_BLUE},      {255, 255, 0, COLOUR_YELLOW},
    {0, 255, 255, COLOUR_CYAN},  {255, 0, 255, COLOUR_MAGENTA},
};

/* The named colour with these intensities, or COLOUR_OTHER. */
static enum colour colour_of(int r, int g, int b)
{
    int i;

    for (i = 0; i < 8; i++) {
        if (palette[i].r == r && palette[i].g == g && palette[i].b == b)
            return palette[i].colour;
    }
    return COLOUR_OTHER;
}

int enumeration(int r, int g, int b)
{
    switch (colour_of(r, g, b)) {
    case COLOUR_BLACK:
        return 1; /* target */
    case COLOUR_WHITE:
        return 2;
    case COLOUR_RED:
    case COLOUR_GREEN:
    case COLOUR_BLUE:
        return 3;
    case COLOUR_YELLOW:
    case COLOUR_CYAN:
    case COLOUR_MAGENTA:
        return 4;
    default:
        return 0;
    }
}
