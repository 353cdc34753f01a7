/*
 * parse: the pure parsers of a request's target and headers, which http.c and the handlers (server/api/)
 * share, kept apart from any connection so that a fuzz target (tests/fuzz/target_fuzz.c) reaches them. Any
 * thread; no state.
 */
#include "server/http/parse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool parse_route(const char *pattern, const char *path, char args[PARSE_MAX_ARGS][PARSE_ARG_MAX], int *nargs)
{
    int n = 0;

    while (*pattern && *path) {
        if (*pattern != '/' || *path != '/')
            return false;
        pattern++;
        path++;
        size_t plen = strcspn(pattern, "/"), slen = strcspn(path, "/");
        if (pattern[0] == '{') {
            if (slen == 0 || slen >= PARSE_ARG_MAX || n >= PARSE_MAX_ARGS)
                return false;
            snprintf(args[n++], PARSE_ARG_MAX, "%.*s", (int)slen, path);
        } else if (plen != slen || strncmp(pattern, path, plen)) {
            return false;
        }
        pattern += plen;
        path += slen;
    }
    if (*pattern || *path)
        return false;
    *nargs = n;
    return true;
}

bool parse_listed(const char *list, const char *name)
{
    size_t klen = strlen(name);
    const char *p = list;

    while (p && *p) {
        size_t len = strcspn(p, ",");
        if (len == klen && !strncmp(p, name, len))
            return true;
        p += len + (p[len] == ',');
    }
    return false;
}

long long parse_id(const char *s)
{
    char *end;
    long long v;

    if (!s || !*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 18)
        return 0;
    v = strtoll(s, &end, 10);
    return v > 0 ? v : 0;
}

bool parse_platform_id(const char *s)
{
    size_t n = strlen(s);
    return n >= 1 && n <= 160 &&
           strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/:-") == n;
}

bool parse_text(const char *s, size_t max, bool empty_ok)
{
    size_t n = strlen(s);

    if ((!n && !empty_ok) || n > max)
        return false;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return false;
    return true;
}

bool parse_platform_list(const char *s)
{
    char id[192];

    while (*s) {
        size_t n = strcspn(s, ",");
        if (n == 0 || n >= sizeof(id))
            return false;
        memcpy(id, s, n);
        id[n] = '\0';
        if (!parse_platform_id(id))
            return false;
        s += n;
        if (*s == ',' && !*++s)
            return false; /* trailing comma */
    }
    return true;
}

bool parse_time_chars(const char *s)
{
    return strspn(s, "0123456789-:TZ.+ ") == strlen(s);
}

long long parse_event_id(const char *s)
{
    return s ? strtoll(s, NULL, 10) : 0;
}
