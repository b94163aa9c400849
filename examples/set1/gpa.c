/*
 * gpa.c: the grade-point average of three courses, each a letter grade ('A' to 'F', with '+'
 * and '-' modifiers) and a credit count, with a dean's-list rule and an exact-credit rule.
 * Written afresh for evotest as one of ten constant-heavy programs standing in for Anjum & Ryan
 * 2021's Set 1 ("Grade Point Average (GPA) Calculator" is on their list; their programs are not
 * published).
 *
 * Signature: int gpa(char g1, char m1, int c1, char g2, char m2, int c2, char g3, char m3, int c3)
 * Inputs and ranges: grades and modifiers are chars over the whole char range, credits ints.
 * Returns the GPA times 100 (0..430), -1 for an invalid grade or credit count, or 1000 + the GPA
 *   for the dean's list.
 * Constants: the letters 'A', 'B', 'C', 'D', 'F' (a switch), the modifiers '+' and '-', the
 *   credits 1..5, the dean's-list GPA 350 and the exact total of 15 credits.
 * Condition-decision objectives: see bench/ge-set1.toml (`feasible`), all feasible; checked by
 *   the bench's ground truth (llvm-cov-22 branch and MC/DC views).
 */

static int points(char g, char m)
{
    int p;
    switch (g) {
    case 'A': p = 400; break;
    case 'B': p = 300; break;
    case 'C': p = 200; break;
    case 'D': p = 100; break;
    case 'F': return 0;
    default: return -1;
    }
    if (m == '+' && g != 'A')
        p += 30;
    else if (m == '-')
        p -= 30;
    else if (m != ' ')
        return -1;
    return p;
}

int gpa(char g1, char m1, int c1, char g2, char m2, int c2, char g3, char m3, int c3)
{
    int p1 = points(g1, m1), p2 = points(g2, m2), p3 = points(g3, m3);
    int credits;
    if (p1 < 0 || p2 < 0 || p3 < 0)
        return -1;
    if (c1 < 1 || c1 > 5 || c2 < 1 || c2 > 5 || c3 < 1 || c3 > 5)
        return -1;
    credits = c1 + c2 + c3;
    int g = (p1 * c1 + p2 * c2 + p3 * c3) / credits;
    if (g >= 350 && credits == 15)
        return 1000 + g;
    return g;
}
