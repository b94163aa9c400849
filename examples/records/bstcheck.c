/*
 * bstcheck.c: a binary tree: whether it is a binary search tree, its height, a key found by the
 * search-tree walk and at what depth.
 *
 * Source: written for evotest (a tree parameter: a structure with two links to its own type,
 *   built from a pool of nodes; recursion over it).
 * Signature: int bstcheck(const struct tree *root)
 *   Returns -1 (not a search tree over the open interval (-1000000, 1000000)), 0 (empty), 3 (a
 *   search tree of height at least 4 in which 500 is found at depth 2 or deeper), 2 (height at
 *   least 4), 1 (otherwise).
 * Inputs and ranges: a pool of 8 nodes (the default), every key over the whole int range.
 * evotest options: none.
 * Feasible outcomes: all (checked by the benchmark's ground truth, `make bench-records`).
 */
struct tree {
    int key;
    struct tree *left, *right;
};

static int is_bst(const struct tree *t, long lo, long hi)
{
    if (!t)
        return 1;
    if (t->key <= lo || t->key >= hi)
        return 0;
    return is_bst(t->left, lo, t->key) && is_bst(t->right, t->key, hi);
}

static int height(const struct tree *t)
{
    if (!t)
        return 0;
    int a = height(t->left), b = height(t->right);
    return 1 + (a > b ? a : b);
}

int bstcheck(const struct tree *root)
{
    if (!is_bst(root, -1000000L, 1000000L))
        return -1;
    if (!root)
        return 0;
    int depth = 0;
    const struct tree *t = root;
    while (t && t->key != 500) {
        t = 500 < t->key ? t->left : t->right;
        depth++;
    }
    int h = height(root);
    if (h >= 4 && t && depth >= 2)
        return 3;
    if (h >= 4)
        return 2;
    return 1;
}
