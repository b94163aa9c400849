/*
 * strcomp.c: three character tests and a string comparison. Written afresh for evotest from the
 * description in Bueno & Jino (the paper gives no listing).
 *
 * Source: Bueno & Jino (2002), §9.1 and Table 2. The paper says: three characters and a
 *   string with five positions; predicates such as if(ch1 == 'a') and if(!strcmp(name, "test1"));
 *   the hardest path needs exactly ('a', 'b', 'c', "test1"). Table 2 gives 9 nodes and cyclomatic
 *   complexity 5. This version has 4 decisions (cyclomatic complexity 5).
 * Signature: int strcomp(char ch1, char ch2, char ch3, const char *name)
 *   Returns a bit mask of the tests that held: 1, 2 and 4 for the characters, 8 for the string.
 * Inputs and ranges: the paper gives each character 128 values (ASCII 0..127), so the characters
 *   use 0..127. name is a string of up to 5 characters over evotest's default alphabet (printable
 *   ASCII 32..126), which contains "test1". A NUL cannot occur inside a string.
 * evotest options: --range ch1=0..127 --range ch2=0..127 --range ch3=0..127 --string name=5
 *
 * Branch sites (evotest sites): 4 sites, 8 outcomes:
 *   line 35:13  ch1 == 'a'
 *   line 37:13  ch2 == 'b'
 *   line 39:13  ch3 == 'c'
 *   line 41:10  strcmp(name, "test1") != 0   (true means "differs": the paper's !strcmp path is
 *                 its false outcome; the pass measures the distance between the two strings)
 * Feasible outcomes: 8 of 8. No outcome is infeasible. The hardest is line 41:10 → false, which
 *   needs name = "test1", one of the 95^5 strings of length 5. ('a', 'b', 'c', "test1")
 *   takes every true-of-a-test outcome at once and returns 15.
 * Checked by: an llvm-cov branch count over all 128^3 character triples (with name = "test"),
 *   5 million random inputs (strings of length 0..5 over the alphabet) and ('a', 'b', 'c',
 *   "test1"). Every outcome was taken; no random string equalled "test1". ASan and UBSan were
 *   clean.
 */
#include <string.h>

int strcomp(char ch1, char ch2, char ch3, const char *name)
{
    int r = 0;
    if (ch1 == 'a')
        r += 1;
    if (ch2 == 'b')
        r += 2;
    if (ch3 == 'c')
        r += 4;
    if (!strcmp(name, "test1"))
        r += 8;
    return r; /* 15 only for ('a', 'b', 'c', "test1") */
}
