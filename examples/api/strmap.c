/* A string-to-int map with chained buckets: an API tested with call sequences (evotest run
 * --api). Updating a present key, colliding keys, removing the head or an inner entry of a chain,
 * and the reserved key "admin" that only a program constant reaches. */
#include <stdlib.h>
#include <string.h>

#define BUCKETS 4

struct entry {
    char *key;
    int value;
    struct entry *next;
};

struct strmap {
    struct entry *b[BUCKETS];
    int size;
};

static unsigned hash(const char *k) {
    unsigned h = 5381;
    while (*k)
        h = h * 33 + (unsigned char)*k++;
    return h % BUCKETS;
}

struct strmap *map_new(void) { return calloc(1, sizeof(struct strmap)); }

int map_put(struct strmap *m, const char *key, int value) {
    if (key[0] == '\0')
        return -1;
    if (strcmp(key, "admin") == 0 && value != 0)
        return -2; /* reserved */
    struct entry **p = &m->b[hash(key)];
    for (struct entry *e = *p; e; e = e->next) {
        if (strcmp(e->key, key) == 0) {
            e->value = value;
            return 0; /* updated */
        }
    }
    struct entry *e = malloc(sizeof *e);
    e->key = strdup(key);
    e->value = value;
    e->next = *p;
    *p = e;
    m->size++;
    return 1;
}

int map_get(const struct strmap *m, const char *key, int *out) {
    for (struct entry *e = m->b[hash(key)]; e; e = e->next) {
        if (strcmp(e->key, key) == 0) {
            *out = e->value;
            return 1;
        }
    }
    return 0;
}

int map_remove(struct strmap *m, const char *key) {
    struct entry **p = &m->b[hash(key)];
    while (*p) {
        struct entry *e = *p;
        if (strcmp(e->key, key) == 0) {
            *p = e->next;
            free(e->key);
            free(e);
            m->size--;
            return 1;
        }
        p = &e->next;
    }
    return 0;
}

int map_size(const struct strmap *m) { return m->size; }

void map_free(struct strmap *m) {
    for (int i = 0; i < BUCKETS; i++) {
        struct entry *e = m->b[i];
        while (e) {
            struct entry *n = e->next;
            free(e->key);
            free(e);
            e = n;
        }
    }
    free(m);
}
