/* A ring buffer of ints: an API tested with call sequences (evotest run --api).
 *
 *   evotest run examples/api/ringbuf.c --api
 *
 * Most of its branches need a state that only a sequence of calls builds: a full buffer (cap
 * pushes), a wrapped head (pushes and pops), two buffers drained into each other. ring_resize
 * has a bug: shrinking a buffer whose head has wrapped keeps the old head, which the invariant
 * check in ring_pop then catches (an abort). */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

struct ring {
    int *data;
    int cap;
    int head;
    int count;
    int drops;
};

struct ring *ring_new(int cap) {
    if (cap <= 0 || cap > 64)
        return NULL;
    struct ring *r = malloc(sizeof *r);
    r->data = calloc((size_t)cap, sizeof(int));
    r->cap = cap;
    r->head = 0;
    r->count = 0;
    r->drops = 0;
    return r;
}

int ring_push(struct ring *r, int x) {
    if (r->count == r->cap) {
        r->drops++;
        return -1;
    }
    r->data[(r->head + r->count) % r->cap] = x;
    r->count++;
    return r->count;
}

int ring_pop(struct ring *r, int *out) {
    assert(r->head >= 0 && r->head < r->cap);
    if (r->count == 0)
        return 0;
    *out = r->data[r->head];
    r->head = (r->head + 1) % r->cap;
    r->count--;
    return 1;
}

int ring_drops(const struct ring *r) {
    if (r->drops > 3)
        return 3; /* "many" */
    return r->drops;
}

/* Move the elements of b to the end of a, as many as fit; the number moved. */
int ring_drain(struct ring *a, struct ring *b) {
    int moved = 0, x;
    if (a == b)
        return -1;
    while (ring_pop(b, &x)) {
        if (ring_push(a, x) < 0)
            break;
        moved++;
    }
    return moved;
}

/* Change the capacity, keeping the oldest elements that fit. */
int ring_resize(struct ring *r, int cap) {
    if (cap <= 0 || cap > 64)
        return -1;
    int *d = calloc((size_t)cap, sizeof(int));
    int n = r->count < cap ? r->count : cap;
    for (int i = 0; i < n; i++)
        d[i] = r->data[(r->head + i) % r->cap];
    free(r->data);
    r->data = d;
    r->count = n;
    if (r->head + n <= cap)
        r->head = 0;
    /* BUG: a wrapped head is kept, and may lie beyond the new capacity */
    r->cap = cap;
    return n;
}

void ring_free(struct ring *r) {
    free(r->data);
    free(r);
}
