/*
 * spawn: what a child forked by ppbenchd does before exec (the embedded PostgreSQL's tools, the supervised
 * workers): no blocked or ignored signals, stdin from /dev/null, no descriptors past stderr.
 */
#ifndef PP_SPAWN_H
#define PP_SPAWN_H

/* In a forked child, before exec; async-signal-safe calls only. outfd >= 0 becomes stdout and stderr; -1
 * keeps them. */
void spawn_child_reset(int outfd);

/* Set this process's OOM score adjustment (-1000..1000; "-500" makes it among the last the kernel's OOM
 * killer takes). Lowering needs CAP_SYS_RESOURCE and is skipped without it; raising always works.
 * Async-signal-safe. */
void spawn_oom_score(const char *adj);

#endif
