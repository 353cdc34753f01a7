/*
 * cli: what every command of `ppbench` shares: the server and token to use, the output mode, the global
 * options (accepted before or after the command), exit statuses and the one place that prints a failure.
 */
#ifndef PP_CLI_CLI_H
#define PP_CLI_CLI_H

#include <getopt.h>

#include "cli/http.h"
#include "lib/error.h"

/* Exit statuses of every command. */
enum {
    CLI_OK = 0,
    CLI_FAILED = 1,        /* the job failed (its error is printed) */
    CLI_USAGE = 2,         /* bad usage, or the server refused the request (4xx) */
    CLI_CANCELLED = 3,     /* the job was cancelled */
    CLI_UNREACHABLE = 4,   /* no answer from the server, a 5xx, or an answer that makes no sense */
    CLI_NOT_SERVED = 5,    /* submitted, but no live worker serves its platform: not followed */
    CLI_INTERRUPTED = 130, /* SIGINT or SIGTERM while following a job (128 + SIGINT, as a shell says) */
};

struct cli {
    struct http_client http;
    int json; /* --json: print the server's JSON instead of a table */
    const char
        *token_from; /* where the token came from (--token, PPBENCH_TOKEN, the token file), for a 401 */
};

/* getopt_long values of the global options; put CLI_GLOBAL_OPTIONS in every command's table. */
enum { CLI_OPT_SERVER = 0x100, CLI_OPT_TOKEN, CLI_OPT_JSON };
#define CLI_GLOBAL_OPTIONS                                                                                   \
    {"server", required_argument, NULL, CLI_OPT_SERVER}, {"token", required_argument, NULL, CLI_OPT_TOKEN},  \
        {"json", no_argument, NULL, CLI_OPT_JSON},                                                           \
    {                                                                                                        \
        "help", no_argument, NULL, 'h'                                                                       \
    }

/* Defaults: $PPBENCH_SERVER, else the server ppbench login saved beside the token (the file's line "server
 * URL"), else http://127.0.0.1:8080; $PPBENCH_TOKEN or the first line of ~/.config/ppbench/token when that
 * file exists. */
int cli_init(struct cli *c, struct pp_error *err) PP_WUR;

/*
 * getopt_long that handles the global options itself. optstring must start with ':'. Returns the next
 * command option, -1 at the end, or '?' after printing what was wrong (the caller exits with CLI_USAGE). Set
 * optind = 0 before the first call.
 */
int cli_getopt(struct cli *c, int argc, char **argv, const char *optstring, const struct option *longopts);

/* Prints "ppbench: <message>" to stderr; returns CLI_USAGE. */
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Prints a failed request: "ppbench: <err>", the error's detail when the server sent one, and a hint on a 401
 * without a token. Returns the exit status for it: CLI_USAGE for a 4xx, CLI_UNREACHABLE otherwise.
 */
int cli_fail(const struct cli *c, const struct http_reply *r, const struct pp_error *err);

/* Writes the server's body to stdout as it came (for --json and CSV), ending with a newline. */
void cli_print_body(const struct http_reply *r);

/* Parses a whole decimal number (any sign) or 2^k for option opt (lib/sweep.h's sweep_integer). */
int cli_parse_ll(const char *opt, const char *s, long long *out, struct pp_error *err) PP_WUR;

#endif
