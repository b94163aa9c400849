/* A least-recently-used cache of int keys and values: an API tested with call sequences
 * (evotest run --api). A hit, a miss, an update, an eviction once the cache is full, and a
 * resize that evicts. */
#include <stdlib.h>

struct lru {
    int cap, n;
    int keys[16], vals[16];
    unsigned stamp[16], clock;
    int hits, misses;
};

struct lru *lru_new(int cap) {
    if (cap < 1 || cap > 16)
        return NULL;
    struct lru *c = calloc(1, sizeof *c);
    c->cap = cap;
    return c;
}

static int slot(const struct lru *c, int key) {
    for (int i = 0; i < c->n; i++)
        if (c->keys[i] == key)
            return i;
    return -1;
}

static int oldest(const struct lru *c) {
    int o = 0;
    for (int i = 1; i < c->n; i++)
        if (c->stamp[i] < c->stamp[o])
            o = i;
    return o;
}

int lru_get(struct lru *c, int key, int *value) {
    int i = slot(c, key);
    if (i < 0) {
        c->misses++;
        return 0;
    }
    c->hits++;
    c->stamp[i] = ++c->clock;
    *value = c->vals[i];
    return 1;
}

/* 0: updated, 1: inserted, 2: inserted after evicting the least recently used key */
int lru_put(struct lru *c, int key, int value) {
    int i = slot(c, key);
    if (i >= 0) {
        c->vals[i] = value;
        c->stamp[i] = ++c->clock;
        return 0;
    }
    int evicted = 0;
    if (c->n == c->cap) {
        i = oldest(c);
        evicted = 1;
    } else {
        i = c->n++;
    }
    c->keys[i] = key;
    c->vals[i] = value;
    c->stamp[i] = ++c->clock;
    return 1 + evicted;
}

/* Shrink or grow; the number of keys evicted. */
int lru_resize(struct lru *c, int cap) {
    if (cap < 1 || cap > 16)
        return -1;
    int evicted = 0;
    while (c->n > cap) {
        int o = oldest(c);
        c->n--;
        c->keys[o] = c->keys[c->n];
        c->vals[o] = c->vals[c->n];
        c->stamp[o] = c->stamp[c->n];
        evicted++;
    }
    c->cap = cap;
    return evicted;
}

/* Hit ratio in percent, -1 before any lookup. */
int lru_hit_ratio(const struct lru *c) {
    int total = c->hits + c->misses;
    if (total == 0)
        return -1;
    return 100 * c->hits / total;
}

void lru_free(struct lru *c) { free(c); }
