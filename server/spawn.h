/*
 * spawn: what a child forked by ppbenchd does before exec (the embedded PostgreSQL's tools, the supervised
 * workers): no blocked or ignored signals, stdin from /dev/null, no descriptors past stderr; and for a child
 * killed at a deadline (the drain hook, a Slurm command), a process group of its own that is killed whole.
 */
#ifndef PP_SPAWN_H
#define PP_SPAWN_H

#include <sys/types.h>

/* In a forked child, before exec; async-signal-safe calls only. outfd >= 0 becomes stdout and stderr; -1
 * keeps them. */
void spawn_child_reset(int outfd);

/* Set this process's OOM score adjustment (-1000..1000; "-500" makes it among the last the kernel's OOM
 * killer takes). Lowering needs CAP_SYS_RESOURCE and is skipped without it; raising always works.
 * Async-signal-safe. */
void spawn_oom_score(const char *adj);

/* In a forked child (spawn_own_group) and in its parent right after the fork (spawn_own_group_of, which
 * closes the race of a kill before the child ran): the child leads a process group of its own, so that
 * spawn_kill_group takes everything it started too (a hook's background children). Async-signal-safe. */
void spawn_own_group(void);
void spawn_own_group_of(pid_t pid);

/* SIGKILL to the process group pid leads (whatever of it is left) and to pid itself. */
void spawn_kill_group(pid_t pid);

#endif
