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
    char line[2048];
    int n;
    va_list ap;

    if (level > max_level)
        return;
    n = snprintf(line, sizeof(line), "<%d>", (int)level);
    va_start(ap, fmt);
    n += vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
    va_end(ap);
    if (n > (int)sizeof(line) - 2)
        n = (int)sizeof(line) - 2;
    line[n++] = '\n';
    (void)!write(STDERR_FILENO, line, (size_t)n);
}
