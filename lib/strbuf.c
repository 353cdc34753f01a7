/* strbuf: see strbuf.h. */
#include "lib/strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* grow: room for n more bytes and the terminating NUL; false (and failed) when memory ran out. */
static bool grow(struct strbuf *b, size_t n)
{
    size_t cap = 2 * b->cap + n + 1;
    char *p = realloc(b->p, cap);

    if (!p) {
        b->failed = true;
        return false;
    }
    b->p = p;
    b->cap = cap;
    return true;
}

void strbuf_printf(struct strbuf *b, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (b->failed)
        return;
    for (;;) {
        va_start(ap, fmt);
        n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->failed = true;
            return;
        }
        if ((size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        if (!grow(b, (size_t)n))
            return;
    }
}

void strbuf_add(struct strbuf *b, const char *s, size_t n)
{
    if (b->failed)
        return;
    if (b->cap - b->len <= n && !grow(b, n))
        return;
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}
