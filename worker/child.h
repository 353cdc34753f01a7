/*
 * child: one `ppbench-worker` command in a child process, watched from the parent (worker/serve.c): the
 * job's `run --json --progress-fd 3`, or `list --json` for serve's platform.
 */
#ifndef PP_CHILD_H
#define PP_CHILD_H

#include <jansson.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

#include "lib/error.h"

/* A child process running `ppbench-worker <args>` from /proc/self/exe: stdout into an anonymous file (the
 * report, read once it exits), stderr and progress through non-blocking pipes. */
struct child {
    pid_t pid;       /* 0 once reaped */
    int status;      /* wait status, once reaped */
    int out_fd;      /* memfd: the child's stdout */
    int err_fd;      /* stderr pipe; -1 at EOF */
    int progress_fd; /* progress pipe ("progress 0.42" lines on the child's fd 3); -1 at EOF or none */
    double progress; /* last fraction reported, -1 before any */
    char line[64];   /* a partial progress line */
    size_t line_len;
    char tail[16384]; /* the last bytes of stderr */
    size_t tail_len;
};

/* Start argv[0..] (argv[0] is the command name shown by ps). The child gets its own process group (a
 * terminal's ^C reaches only the worker, which decides), dies with its parent (PR_SET_PDEATHSIG), and runs
 * with sigmask as its signal mask. progress: give it fd 3 for progress lines. */
int child_start(struct child *ch, char *const argv[], bool progress, const sigset_t *sigmask,
                struct pp_error *err) PP_WUR;

/* Move what the pipes hold into tail and progress; returns without waiting. */
void child_read(struct child *ch);

/* Reap it if it has exited (does not wait); true once reaped. */
bool child_reap(struct child *ch);

/* Wait up to timeout_s for it to exit, reading its pipes; false on timeout. */
bool child_wait(struct child *ch, double timeout_s);

void child_signal(struct child *ch, int sig); /* no-op once reaped */

/* The child's stdout parsed as JSON (new reference), or NULL with the reason in err. */
json_t *child_json(struct child *ch, struct pp_error *err);

/* Why a reaped child did not succeed, as a job error: its own message for RUN_USAGE and RUN_FAILED
 * ("ppbench-worker: " dropped), the verification failures of report for RUN_UNVERIFIED, "killed by signal 11
 * (SIGSEGV)" plus the last lines of stderr for a signal. */
void child_error(const struct child *ch, json_t *report, char *out, size_t size);

/* The platform object (one element of .platforms[]) of `ppbench-worker list --json`, run in a child, that key
 * names: an id, "host/id", a GPU UUID or a PCI bus id. Returns RUN_OK with *out (new reference), RUN_USAGE
 * when none matches or RUN_FAILED when discovery failed, with err. */
int child_platform(const char *key, const char *host, const sigset_t *sigmask, double timeout_s, json_t **out,
                   struct pp_error *err) PP_WUR;

/* Kill (SIGKILL) and reap it if still running, close the fds. */
void child_release(struct child *ch);

#endif
