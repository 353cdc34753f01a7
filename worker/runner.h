/*
 * runner: one suite on one platform through one model, start to report. In this process (runner_run: what
 * `ppbench-worker run` does), or in a child process that execs `ppbench-worker run` and is watched from
 * here (runner_child_*: what `ppbench-worker serve` does for each job).
 */
#ifndef PP_RUNNER_H
#define PP_RUNNER_H

#include <jansson.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "kernels/staggered/staggered.h"
#include "kernels/stream/stream.h"
#include "kernels/wilson/wilson.h"
#include "lib/error.h"

enum runner_format { RUNNER_TABLE, RUNNER_CSV, RUNNER_JSON };

struct runner_job {
    const char *platform, *model, *suite;
    struct stream_params stream;       /* progress/progress_arg are the runner's own when progress_fd >= 0 */
    struct wilson_params wilson;       /* the same, for --suite wilson */
    struct staggered_params staggered; /* and for --suite staggered */
    int progress_fd; /* -1, or a pipe that gets "progress 0.42\n" lines (at most ~10 per second) */
};

/* Discover, resolve platform and model, check the problem against the device, open, run, and write the
 * report to out in fmt; verification failures go to stderr, one line each. Returns a run.h exit status:
 * RUN_OK, RUN_UNVERIFIED (err: the first failures), RUN_USAGE or RUN_FAILED (err: why). err may span lines
 * (a model's discovery notes follow its message, indented). */
int runner_run(const struct runner_job *job, FILE *out, enum runner_format fmt, struct pp_error *err) PP_WUR;

/* A suite's report writers (worker/runner_<suite>.c), for runner_report. */
struct run_report;
struct runner_writers {
    void (*table)(FILE *f, const struct run_report *r);
    void (*csv)(FILE *f, const struct run_report *r);
    int (*json)(FILE *f, const struct run_report *r, struct pp_error *err);
};

/* The end of a one-kernel suite's run: write r in fmt and flush; when !verified, detail goes to stderr and
 * err as "verification failed: <detail>". Returns RUN_OK, RUN_UNVERIFIED or RUN_FAILED (err: why). */
int runner_report(FILE *out, enum runner_format fmt, const struct run_report *r,
                  const struct runner_writers *w, bool verified, const char *detail,
                  struct pp_error *err) PP_WUR;

/* A child process running `ppbench-worker <args>` from /proc/self/exe: stdout into an anonymous file (the
 * report, read once it exits), stderr and progress through non-blocking pipes. */
struct runner_child {
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
int runner_child_start(struct runner_child *ch, char *const argv[], bool progress, const sigset_t *sigmask,
                       struct pp_error *err) PP_WUR;

/* Move what the pipes hold into tail and progress; returns without waiting. */
void runner_child_read(struct runner_child *ch);

/* Reap it if it has exited (does not wait); true once reaped. */
bool runner_child_reap(struct runner_child *ch);

/* Wait up to timeout_s for it to exit, reading its pipes; false on timeout. */
bool runner_child_wait(struct runner_child *ch, double timeout_s);

void runner_child_signal(struct runner_child *ch, int sig); /* no-op once reaped */

/* The child's stdout parsed as JSON (new reference), or NULL with the reason in err. */
json_t *runner_child_json(struct runner_child *ch, struct pp_error *err);

/* Why a reaped child did not succeed, as a job error: its own message for RUN_USAGE and RUN_FAILED
 * ("ppbench-worker: " dropped), the verification failures of report for RUN_UNVERIFIED, "killed by signal 11
 * (SIGSEGV)" plus the last lines of stderr for a signal. */
void runner_child_error(const struct runner_child *ch, json_t *report, char *out, size_t size);

/* The command line of `run --json --progress-fd 3` for a job object of the API (its "suite", "model",
 * "kernels" and "params") on platform, for runner_child_start; argv points into a. Each parameter maps to its
 * option through one table (worker/runner_args.c); a parameter that `run` does not know fails the job rather
 * than being ignored. */
#define RUNNER_MAX_PARAMS 16
struct runner_args {
    char *argv[14 + 2 * RUNNER_MAX_PARAMS]; /* 13 fixed words and NULL, at most two words per parameter */
    char platform[48], model[32], suite[32], kernels[160];
    char values[RUNNER_MAX_PARAMS][64]; /* the parameters' option arguments */
    char summary[256]; /* for the log: "wilson dslash lattice=4x4x4x8 layout=aos precision=fp32 numtimes=3" */
};
int runner_args_from_job(struct runner_args *a, json_t *job, const char *platform,
                         struct pp_error *err) PP_WUR;

/* The platform object (one element of .platforms[]) of `ppbench-worker list --json`, run in a child, that key
 * names: an id, "host/id", a GPU UUID or a PCI bus id. Returns RUN_OK with *out (new reference), RUN_USAGE
 * when none matches or RUN_FAILED when discovery failed, with err. */
int runner_child_platform(const char *key, const char *host, const sigset_t *sigmask, double timeout_s,
                          json_t **out, struct pp_error *err) PP_WUR;

/* Kill (SIGKILL) and reap it if still running, close the fds. */
void runner_child_release(struct runner_child *ch);

#endif
