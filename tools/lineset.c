/*
 * lineset: a build-time tool (the Makefile's line-set block, scripts/linesets.sh). It reads on stdin what
 * `cpp -dD` printed for one translation unit, run in a copy of the tree (ROOT) whose system #include lines are
 * blanked, and prints the fingerprint of every source line the preprocessor kept, of the unit's file and of
 * every file it included: a line whose output is not empty (code, #pragma, #define, with -dD) and the
 * backslash continuations of such a line. Blank lines, comments, the conditional directives and the lines of
 * inactive #if regions are not compiled and print nothing, as Code Base Investigator counts them. A
 * fingerprint is 16 hex digits of FNV-1a 64 over "path\nline\ntext", the path relative to ROOT, the text with
 * its runs of white space made one space and its ends trimmed. Usage: lineset ROOT < cpp-output.
 * Single-threaded, exits 1 with a message on error.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FILES 256
#define MAX_LINES 100000

/* One source file of the unit: its lines (1-based) and which of them the preprocessor kept. */
struct source {
    char *path; /* relative to ROOT */
    char **lines;
    bool *kept;
    long n;
};

static struct source files[MAX_FILES];
static size_t nfiles;

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

static void die(const char *what, const char *path)
{
    fprintf(stderr, "lineset: %s: %s\n", what, path);
    exit(1);
}

/* The file named by a line marker, read once; NULL for what is not a file of the tree (<built-in>, ...). */
static struct source *source_of(const char *root, const char *marker)
{
    char full[8192], *buf = NULL;
    size_t cap = 0, lcap = 0;
    struct source *s;
    FILE *f;

    while (!strncmp(marker, "./", 2))
        marker += 2;
    if (marker[0] == '<' || marker[0] == '/')
        return NULL;
    for (size_t i = 0; i < nfiles; i++)
        if (!strcmp(files[i].path, marker))
            return &files[i];
    if (nfiles == MAX_FILES)
        die("more files than the tool holds", marker);
    snprintf(full, sizeof(full), "%s/%s", root, marker);
    if (!(f = fopen(full, "r")))
        die("cannot read", full);
    s = &files[nfiles++];
    s->path = strdup(marker);
    while (getline(&buf, &cap, f) >= 0) {
        if (s->n + 2 > (long)lcap) {
            lcap = lcap ? 2 * lcap : 1024;
            if (lcap > MAX_LINES || !(s->lines = realloc(s->lines, lcap * sizeof(*s->lines))))
                die("too many lines", full);
        }
        s->lines[++s->n] = strdup(buf);
    }
    free(buf);
    fclose(f);
    if (!(s->kept = calloc((size_t)s->n + 2, sizeof(bool))))
        die("out of memory", full);
    return s;
}

int main(int argc, char **argv)
{
    char *buf = NULL, marker[4096];
    size_t cap = 0;
    struct source *at = NULL;
    long line = 0, n;

    if (argc != 2) {
        fprintf(stderr, "usage: lineset ROOT < cpp-output\n");
        return 1;
    }
    /* cpp's line markers: # LINE "FILE" FLAGS; the lines after one are FILE's from LINE on. */
    while (getline(&buf, &cap, stdin) >= 0) {
        if (buf[0] == '#' && sscanf(buf, "# %ld \"%4095[^\"]\"", &n, marker) == 2) {
            at = source_of(argv[1], marker);
            line = n;
            continue;
        }
        if (at && line >= 1 && line <= at->n && !blank(buf))
            at->kept[line] = true;
        line++;
    }
    free(buf);
    for (size_t i = 0; i < nfiles; i++) {
        const struct source *s = &files[i];
        for (long k = 1; k <= s->n; k++) {
            if (!s->kept[k])
                continue;
            for (long c = k; c <= s->n && (c == k || continued(s->lines[c - 1])); c++)
                if (!blank(s->lines[c]))
                    printf("%016llx\n", (unsigned long long)fingerprint(s->path, c, s->lines[c]));
        }
    }
    return 0;
}
