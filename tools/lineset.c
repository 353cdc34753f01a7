/*
 * lineset: a build-time tool (the Makefile's line-set block, scripts/linesets.sh). It reads on stdin what
 * `cpp -dD` printed for one source file whose #include lines were blanked (line markers on), and prints the
 * fingerprint of every line of that file the preprocessor kept: a line whose output is not empty (code,
 * #pragma, #define, with -dD) and the backslash continuations of such a line. Blank lines, comments, the
 * conditional directives and the lines of inactive #if regions are not compiled and print nothing, as Code
 * Base Investigator counts them. A fingerprint is 16 hex digits of FNV-1a 64 over "path\nline\ntext", the
 * text with its runs of white space made one space and its ends trimmed. Usage: lineset PATH < cpp-output.
 * Single-threaded, exits 1 with a message on error.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LINES 100000

static char *lines[MAX_LINES + 1]; /* the source, 1-based */
static bool kept[MAX_LINES + 1];

static uint64_t fnv(uint64_t h, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

/* The fingerprint of source line n of path: its text normalized. */
static uint64_t fingerprint(const char *path, long n, const char *text)
{
    char num[24], norm[4096];
    size_t k = 0;
    uint64_t h = 0xcbf29ce484222325ULL;

    for (const char *p = text; *p && k + 1 < sizeof(norm); p++) {
        if (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') {
            if (k && norm[k - 1] != ' ')
                norm[k++] = ' ';
        } else {
            norm[k++] = *p;
        }
    }
    while (k && norm[k - 1] == ' ')
        k--;
    snprintf(num, sizeof(num), "\n%ld\n", n);
    h = fnv(h, path, strlen(path));
    h = fnv(h, num, strlen(num));
    return fnv(h, norm, k);
}

static bool blank(const char *s)
{
    return strspn(s, " \t\r\n") == strlen(s);
}

static bool continued(const char *s)
{
    size_t n = strlen(s);

    while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
        n--;
    return n && s[n - 1] == '\\';
}

int main(int argc, char **argv)
{
    char *buf = NULL, file[4096] = "";
    size_t cap = 0;
    long nlines = 0, at = 0;
    FILE *src;

    if (argc != 2) {
        fprintf(stderr, "usage: lineset PATH < cpp-output\n");
        return 1;
    }
    if (!(src = fopen(argv[1], "r"))) {
        perror(argv[1]);
        return 1;
    }
    while (getline(&buf, &cap, src) >= 0) {
        if (nlines == MAX_LINES) {
            fprintf(stderr, "lineset: %s has more than %d lines\n", argv[1], MAX_LINES);
            return 1;
        }
        lines[++nlines] = strdup(buf);
    }
    fclose(src);
    /* cpp's line markers: # LINE "FILE" FLAGS; the source came on stdin, so its lines are "<stdin>"'s. */
    while (getline(&buf, &cap, stdin) >= 0) {
        long n;
        if (buf[0] == '#' && sscanf(buf, "# %ld \"%4095[^\"]\"", &n, file) == 2) {
            at = n;
            continue;
        }
        if (!strcmp(file, "<stdin>") && at >= 1 && at <= nlines && !blank(buf))
            kept[at] = true;
        at++;
    }
    free(buf);
    for (long n = 1; n <= nlines; n++) {
        if (!kept[n])
            continue;
        for (long c = n; c <= nlines && (c == n || continued(lines[c - 1])); c++)
            if (!blank(lines[c]))
                printf("%016llx\n", (unsigned long long)fingerprint(argv[1], c, lines[c]));
    }
    return 0;
}
