/*
 * strbuf: a growing NUL-terminated text (the /metrics page, an import's rows as JSON). Appending never fails
 * loudly: out of memory sets failed and later appends do nothing, so a caller checks once at the end. p is
 * the caller's to free(). A strbuf belongs to one thread.
 */
#ifndef PP_STRBUF_H
#define PP_STRBUF_H

#include <stdbool.h>
#include <stddef.h>

struct strbuf {
    char *p; /* NULL until the first append, or the caller's first allocation */
    size_t len, cap;
    bool failed;
};

void strbuf_printf(struct strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* n bytes of s as they are (no format pass: megabytes of the database's text) */
void strbuf_add(struct strbuf *b, const char *s, size_t n);

#endif
