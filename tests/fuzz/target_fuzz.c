/*
 * libFuzzer target: the pure parsers of a request's target and headers (server/http/parse.c): the route
 * matcher, the allowed query names, ids (limit, cursor, size, job, path ids), platform lists, printable text,
 * since and Last-Event-ID. The first byte picks the parser; the rest is its input (two strings split at the
 * first newline where it takes two: pattern and path, list and name). Whatever the input, none may crash, and
 * each answer is checked against what it promises:
 *   a route match rebuilds the path from the pattern and the captured segments; a listed name is one of the
 *   list's comma-separated names; an id is the decimal it reads; a platform list splits into platform ids.
 *   clang -g -fsanitize=fuzzer,address,undefined -I. -D_GNU_SOURCE tests/fuzz/target_fuzz.c \
 *         server/http/parse.c -o target_fuzz
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/http/parse.h"

/* The path a pattern names with its {param} segments replaced by args, in order. */
static void rebuild(const char *pattern, char args[PARSE_MAX_ARGS][PARSE_ARG_MAX], int nargs, char *out,
                    size_t size)
{
    size_t used = 0;
    int n = 0;

    out[0] = '\0';
    while (*pattern && used < size) {
        size_t len = strcspn(pattern + 1, "/") + 1; /* one segment with its leading slash */
        if (pattern[1] == '{') {
            if (n >= nargs)
                abort(); /* more {param} segments than captures */
            used += (size_t)snprintf(out + used, size - used, "/%s", args[n++]);
        } else {
            used += (size_t)snprintf(out + used, size - used, "%.*s", (int)len, pattern);
        }
        pattern += len;
    }
    if (n != nargs)
        abort();
}

static void check_route(const char *pattern, const char *path)
{
    char args[PARSE_MAX_ARGS][PARSE_ARG_MAX], again[8192];
    int nargs = -1;

    if (!parse_route(pattern, path, args, &nargs))
        return;
    if (nargs < 0 || nargs > PARSE_MAX_ARGS)
        abort();
    for (int i = 0; i < nargs; i++)
        if (!args[i][0] || strchr(args[i], '/') || strlen(args[i]) >= PARSE_ARG_MAX)
            abort(); /* a capture is one non-empty segment */
    rebuild(pattern, args, nargs, again, sizeof(again));
    if (strlen(path) < sizeof(again) - 1 && strcmp(again, path))
        abort(); /* the match is not the path */
}

static void check_listed(const char *list, const char *name)
{
    bool got = parse_listed(list, name), want;
    size_t n = strlen(list);
    char *framed = malloc(n + 3), *needle = malloc(strlen(name) + 3);

    /* The names are list's comma-separated elements, a trailing comma ending the list. */
    if (n && list[n - 1] == ',')
        n--;
    snprintf(framed, n + 3, ",%.*s,", (int)n, list);
    snprintf(needle, strlen(name) + 3, ",%s,", name);
    want = list[0] && !strchr(name, ',') && strstr(framed, needle);
    if (got != want)
        abort();
    free(framed);
    free(needle);
}

static void check_id(const char *s)
{
    long long v = parse_id(s);
    char text[32];

    if (v < 0)
        abort();
    if (v > 0) {
        const char *digits = s + strspn(s, "0");
        snprintf(text, sizeof(text), "%lld", v);
        if (strspn(s, "0123456789") != strlen(s) || strlen(s) > 18 || strcmp(text, digits))
            abort(); /* an id is the decimal it reads, leading zeros aside */
    }
}

static void check_platform_list(const char *s)
{
    char *copy, *p, *comma;

    if (!parse_platform_list(s))
        return;
    copy = strdup(s);
    for (p = copy; *p; p = comma + 1) {
        if ((comma = strchr(p, ',')))
            *comma = '\0';
        if (!parse_platform_id(p))
            abort(); /* every element is a platform id */
        if (!comma)
            break;
    }
    free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s, *second;

    if (size < 1)
        return 0;
    if (!(s = malloc(size)))
        return 0;
    memcpy(s, data + 1, size - 1);
    s[size - 1] = '\0';
    second = strchr(s, '\n');
    switch (data[0] % 6) {
    case 0:
        if (second) {
            *second++ = '\0';
            check_route(s, second);
        }
        break;
    case 1:
        if (second) {
            *second++ = '\0';
            check_listed(s, second);
        }
        break;
    case 2:
        check_id(s);
        break;
    case 3:
        check_platform_list(s);
        break;
    case 4:
        if (parse_text(s, data[0], data[0] & 1) && strlen(s) > data[0])
            abort();
        break;
    default:
        (void)parse_time_chars(s);
        (void)parse_event_id(s);
        break;
    }
    free(s);
    return 0;
}
