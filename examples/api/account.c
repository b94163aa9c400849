/* A bank account as a state machine: an API tested with call sequences (evotest run --api).
 * Branches need states that only sequences reach: a frozen account, an overdraft in use, the
 * fourth withdrawal of a day, a transfer between two distinct open accounts. */
#include <stdlib.h>

enum state { OPEN, FROZEN, CLOSED };

typedef struct account {
    enum state st;
    long balance;  /* cents */
    long overdraft;
    int withdrawals_today;
} Account;

Account *acct_open(long initial) {
    if (initial < 0)
        return NULL;
    Account *a = calloc(1, sizeof *a);
    a->balance = initial;
    return a;
}

int acct_set_overdraft(Account *a, long limit) {
    if (a->st != OPEN)
        return -1;
    if (limit < 0 || limit > 100000)
        return -2;
    if (a->balance < -limit)
        return -3; /* already beyond the new limit */
    a->overdraft = limit;
    return 0;
}

int acct_deposit(Account *a, long cents) {
    if (a->st == CLOSED)
        return -1;
    if (cents <= 0)
        return -2;
    a->balance += cents;
    return 0;
}

int acct_withdraw(Account *a, long cents) {
    if (a->st != OPEN)
        return -1;
    if (cents <= 0)
        return -2;
    if (a->withdrawals_today >= 3)
        return -4; /* daily limit */
    if (a->balance - cents < -a->overdraft)
        return -3;
    a->balance -= cents;
    a->withdrawals_today++;
    return a->balance < 0 ? 1 : 0; /* 1: overdrawn */
}

void acct_new_day(Account *a) { a->withdrawals_today = 0; }

int acct_freeze(Account *a) {
    if (a->st != OPEN)
        return -1;
    a->st = FROZEN;
    return 0;
}

int acct_unfreeze(Account *a) {
    if (a->st != FROZEN)
        return -1;
    a->st = OPEN;
    return 0;
}

int acct_transfer(Account *from, Account *to, long cents) {
    if (from == to)
        return -5;
    if (to->st == CLOSED)
        return -1;
    int r = acct_withdraw(from, cents);
    if (r < 0)
        return r;
    to->balance += cents;
    return r;
}

long acct_close(Account *a) {
    if (a->st == CLOSED)
        return -1;
    if (a->balance < 0)
        return -2; /* settle the overdraft first */
    long paid = a->balance;
    a->balance = 0;
    a->st = CLOSED;
    return paid;
}

long acct_balance(const Account *a) { return a->balance; }
