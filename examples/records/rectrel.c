/*
 * rectrel.c: how two axis-parallel rectangles, each given as a structure of two corner points of
 * doubles, are related: invalid, disjoint, touching, overlapping, one inside the other, or equal.
 *
 * Source: written for evotest (structure parameters by value, nested structures, doubles); the
 *   rectangle-intersection test is a common geometry subject.
 * Signature: int rectrel(struct rect a, struct rect b)
 *   Returns -1 (a corner out of order, or NaN), 0 disjoint, 1 touching along an edge or at a
 *   corner, 2 overlapping, 3 b inside a, 5 a inside b, 4 equal.
 * Inputs and ranges: every member over the whole double range (NaN and infinities included).
 * evotest options: none.
 * Feasible outcomes: all (checked by the benchmark's ground truth, `make bench-records`).
 */
struct point {
    double x, y;
};

struct rect {
    struct point lo, hi; /* lower-left and upper-right corners */
};

static int valid(const struct rect *r)
{
    return r->lo.x <= r->hi.x && r->lo.y <= r->hi.y; /* false for NaN */
}

int rectrel(struct rect a, struct rect b)
{
    if (!valid(&a) || !valid(&b))
        return -1;
    if (a.hi.x < b.lo.x || b.hi.x < a.lo.x || a.hi.y < b.lo.y || b.hi.y < a.lo.y)
        return 0;
    if (a.hi.x == b.lo.x || b.hi.x == a.lo.x || a.hi.y == b.lo.y || b.hi.y == a.lo.y)
        return 1;
    if (a.lo.x == b.lo.x && a.lo.y == b.lo.y && a.hi.x == b.hi.x && a.hi.y == b.hi.y)
        return 4;
    if (a.lo.x <= b.lo.x && a.lo.y <= b.lo.y && b.hi.x <= a.hi.x && b.hi.y <= a.hi.y)
        return 3;
    if (b.lo.x <= a.lo.x && b.lo.y <= a.lo.y && a.hi.x <= b.hi.x && a.hi.y <= b.hi.y)
        return 5;
    return 2;
}
