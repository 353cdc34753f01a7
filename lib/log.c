/*
 * log: one formatted line per call, written with a single write(2) so lines from threads do not interleave.
 */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static volatile enum log_level max_level = LOG_INFO;
static const char *prefix = "";

void log_set_prefix(const char *p)
{
    prefix = p ? p : "";
}

void log_set_level(enum log_level max)
{
    max_level = max;
}

int log_parse_level(const char *name, enum log_level *out)
{
    static const struct {
        const char *name;
        enum log_level level;
    } names[] = {{"error", LOG_ERR},
                 {"warning", LOG_WARNING},
                 {"notice", LOG_NOTICE},
                 {"info", LOG_INFO},
                 {"debug", LOG_DEBUG}};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcasecmp(name, names[i].name) == 0) {
            *out = names[i].level;
            return 0;
        }
    return -1;
}

void log_msg(enum log_level level, const char *fmt, ...)
{
    char msg[4096], line[2048];
    va_list ap;

    if (level > max_level)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    for (char *part = msg, *nl; part; part = nl ? nl + 1 : NULL) {
        int n;
        if ((nl = strchr(part, '\n')))
            *nl = '\0';
        if (nl && !nl[1])
            nl = NULL; /* a trailing newline ends the message, it adds no empty line */
        n = snprintf(line, sizeof(line) - 1, "<%d>%s%s%s", (int)level, prefix, part == msg ? "" : "  ", part);
        if (n > (int)sizeof(line) - 2)
            n = (int)sizeof(line) - 2;
        line[n++] = '\n';
        (void)!write(STDERR_FILENO, line, (size_t)n);
    }
}
