/* A tokenizer fed text in pieces: an API tested with call sequences (evotest run --api).
 * Numbers, identifiers, the keywords "if" and "while", operators, a token split across two
 * feeds, and a buffer that overflows. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

enum { T_END, T_NUM, T_IDENT, T_IF, T_WHILE, T_OP, T_ERROR };

struct lexer {
    char buf[40];
    int len, pos;
    long last_num;
};

struct lexer *lex_new(void) { return calloc(1, sizeof(struct lexer)); }

/* Append text; -1 when it does not fit (nothing appended). */
int lex_feed(struct lexer *l, const char *text) {
    int n = (int)strlen(text);
    if (l->len + n >= (int)sizeof l->buf)
        return -1;
    memcpy(l->buf + l->len, text, (size_t)n);
    l->len += n;
    l->buf[l->len] = 0;
    return n;
}

int lex_next(struct lexer *l) {
    while (l->pos < l->len && l->buf[l->pos] == ' ')
        l->pos++;
    if (l->pos >= l->len)
        return T_END;
    char c = l->buf[l->pos];
    if (isdigit((unsigned char)c)) {
        long v = 0;
        while (l->pos < l->len && isdigit((unsigned char)l->buf[l->pos]))
            v = v * 10 + (l->buf[l->pos++] - '0');
        l->last_num = v;
        return T_NUM;
    }
    if (isalpha((unsigned char)c)) {
        int start = l->pos;
        while (l->pos < l->len && isalnum((unsigned char)l->buf[l->pos]))
            l->pos++;
        int n = l->pos - start;
        if (n == 2 && strncmp(l->buf + start, "if", 2) == 0)
            return T_IF;
        if (n == 5 && strncmp(l->buf + start, "while", 5) == 0)
            return T_WHILE;
        return T_IDENT;
    }
    l->pos++;
    if (strchr("+-*/=<>", c))
        return T_OP;
    return T_ERROR;
}

long lex_number(const struct lexer *l) { return l->last_num; }

/* Drop what was read; the bytes kept. */
int lex_compact(struct lexer *l) {
    if (l->pos == 0)
        return l->len;
    memmove(l->buf, l->buf + l->pos, (size_t)(l->len - l->pos));
    l->len -= l->pos;
    l->pos = 0;
    l->buf[l->len] = 0;
    return l->len;
}

void lex_free(struct lexer *l) { free(l); }
