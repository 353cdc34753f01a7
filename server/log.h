/*
 * log: printf-checked logging to stderr with sd-daemon priority prefixes ("<3>", "<4>", ...), so journald
 * keeps the levels. A context prefix (job=42 platform=... model=...) is part of the message, by convention
 * first.
 */
#ifndef PP_LOG_H
#define PP_LOG_H

enum log_level { LOG_ERR = 3, LOG_WARNING = 4, LOG_NOTICE = 5, LOG_INFO = 6, LOG_DEBUG = 7 };

void log_set_level(enum log_level max);
int log_parse_level(const char *name,
                    enum log_level *out); /* "error", "warning", "notice", "info", "debug" */
void log_msg(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_err(...)    log_msg(LOG_ERR, __VA_ARGS__)
#define log_warn(...)   log_msg(LOG_WARNING, __VA_ARGS__)
#define log_notice(...) log_msg(LOG_NOTICE, __VA_ARGS__)
#define log_info(...)   log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...)  log_msg(LOG_DEBUG, __VA_ARGS__)

#endif
