/*
 * log: the one logger of every binary: printf-checked, to stderr with sd-daemon priority prefixes ("<3>",
 * "<4>", ...), so journald keeps the levels; one write(2) per line, so lines from threads do not interleave.
 * A process may name itself once (log_set_prefix("serve: ")); a context prefix (job=42 platform=...
 * model=...) is part of the message, by convention first. A message of several lines becomes several
 * lines, each with the priority, the later ones indented.
 */
#ifndef PP_LOG_H
#define PP_LOG_H

enum log_level { LOG_ERR = 3, LOG_WARNING = 4, LOG_NOTICE = 5, LOG_INFO = 6, LOG_DEBUG = 7 };

void log_set_level(enum log_level max);
void log_set_prefix(const char *prefix); /* borrowed: a string that lives as long as the process */
int log_parse_level(const char *name,
                    enum log_level *out); /* "error", "warning", "notice", "info", "debug" */
void log_msg(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_err(...)    log_msg(LOG_ERR, __VA_ARGS__)
#define log_warn(...)   log_msg(LOG_WARNING, __VA_ARGS__)
#define log_notice(...) log_msg(LOG_NOTICE, __VA_ARGS__)
#define log_info(...)   log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...)  log_msg(LOG_DEBUG, __VA_ARGS__)

#endif
