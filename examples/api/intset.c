/* A sorted set of ints of bounded size: an API tested with call sequences (evotest run --api).
 * Insertion at the front, middle and end, removal of a present and an absent element, and the
 * union and intersection of two distinct sets, one of them full. */
#include <stdlib.h>

#define SET_MAX 8

struct intset {
    int n;
    int v[SET_MAX];
};

struct intset *set_new(void) { return calloc(1, sizeof(struct intset)); }

static int find(const struct intset *s, int x) {
    int lo = 0, hi = s->n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (s->v[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int set_add(struct intset *s, int x) {
    int i = find(s, x);
    if (i < s->n && s->v[i] == x)
        return 0; /* present */
    if (s->n == SET_MAX)
        return -1; /* full */
    for (int k = s->n; k > i; k--)
        s->v[k] = s->v[k - 1];
    s->v[i] = x;
    s->n++;
    return 1;
}

int set_contains(const struct intset *s, int x) {
    int i = find(s, x);
    return i < s->n && s->v[i] == x;
}

int set_remove(struct intset *s, int x) {
    int i = find(s, x);
    if (i == s->n || s->v[i] != x)
        return 0;
    for (int k = i; k + 1 < s->n; k++)
        s->v[k] = s->v[k + 1];
    s->n--;
    return 1;
}

/* Add every element of b to a; the number added, or -1 if a filled up first. */
int set_union(struct intset *a, const struct intset *b) {
    if (a == b)
        return 0;
    int added = 0;
    for (int i = 0; i < b->n; i++) {
        int r = set_add(a, b->v[i]);
        if (r < 0)
            return -1;
        added += r;
    }
    return added;
}

/* Keep in a only the elements also in b; the number removed. */
int set_intersect(struct intset *a, const struct intset *b) {
    int removed = 0;
    for (int i = 0; i < a->n;) {
        if (!set_contains(b, a->v[i])) {
            set_remove(a, a->v[i]);
            removed++;
        } else {
            i++;
        }
    }
    return removed;
}

int set_min(const struct intset *s, int *out) {
    if (s->n == 0)
        return 0;
    *out = s->v[0];
    return 1;
}

void set_free(struct intset *s) { free(s); }
