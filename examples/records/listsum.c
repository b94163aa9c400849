/*
 * listsum.c: a singly linked list of integers: its length, its sum, whether it is sorted, a
 * value found in it.
 *
 * Source: written for evotest (a list parameter: a structure with a link to its own type, built
 *   from a pool of nodes).
 * Signature: int listsum(const struct node *list)
 *   Returns 0 (NULL), 4 (exactly five nodes summing to 100), 3 (ascending, at least four nodes,
 *   holding -7), 2 (longer than six nodes), 1 (otherwise).
 * Inputs and ranges: a pool of 8 nodes (the default), every value over the whole int range.
 * evotest options: none.
 * Feasible outcomes: all (checked by the benchmark's ground truth, `make bench-records`).
 */
struct node {
    int value;
    struct node *next;
};

int listsum(const struct node *list)
{
    int n = 0, found = 0, ascending = 1;
    long long sum = 0;
    if (!list)
        return 0;
    for (const struct node *p = list; p; p = p->next) {
        n++;
        sum += p->value;
        if (p->value == -7)
            found = 1;
        if (p->next && p->next->value < p->value)
            ascending = 0;
    }
    if (n == 5 && sum == 100)
        return 4;
    if (ascending && n >= 4 && found)
        return 3;
    if (n > 6)
        return 2;
    return 1;
}
