/*
 * discount.c: the price of an order after a volume discount (quantity tiers), a promotion code
 * (a string compared with strcmp) and a loyalty level. Written afresh for evotest as one of ten
 * constant-heavy programs standing in for Anjum & Ryan 2021's Set 1 ("Volume Discount" is on
 * their list; their programs are not published). The promotion codes need string constants,
 * which the paper's grammar does not seed.
 *
 * Signature: int discount(int quantity, int unit_price, const char *code, int loyalty)
 * Inputs and ranges: the ints over the whole int range; code a string of up to 8 characters
 *   from A-Z and 0-9.
 * evotest options: --string code=8:A-Z0-9
 * Returns the price in cents, -1 for an invalid order.
 * Constants: the tiers 10, 50, 100 and 500 units, the price limit 100000, the codes "SAVE10",
 *   "BULK25" and "VIP", the loyalty levels 1..3, and the exact quantity 144 (a gross).
 * Condition-decision objectives: see bench/ge-set1.toml (`feasible`), all feasible; checked by
 *   the bench's ground truth (llvm-cov-22 branch and MC/DC views).
 */

#include <string.h>

int discount(int quantity, int unit_price, const char *code, int loyalty)
{
    long long total;
    int pct = 0;
    if (quantity <= 0 || quantity > 100000 || unit_price <= 0 || unit_price > 100000)
        return -1;
    if (quantity >= 500)
        pct = 20;
    else if (quantity >= 100)
        pct = 12;
    else if (quantity >= 50)
        pct = 8;
    else if (quantity >= 10)
        pct = 3;
    if (quantity == 144)
        pct += 2;
    if (strcmp(code, "SAVE10") == 0)
        pct += 10;
    else if (strcmp(code, "BULK25") == 0 && quantity >= 100)
        pct += 25;
    else if (strcmp(code, "VIP") == 0 && loyalty == 3)
        pct += 30;
    if (loyalty >= 1 && loyalty <= 3)
        pct += loyalty;
    total = (long long)quantity * unit_price * (100 - pct) / 100;
    return total > 2000000000 ? 2000000000 : (int)total;
}
