/*
 * ppbench: the command-line client of ppbenchd. Reads the global options, picks the command and hands it a
 * struct cli (owned here, for the whole run); the command's return value is the exit status (cli/cli.h).
 * Single-threaded; libcurl is initialised once here.
 */
#include <curl/curl.h>
#include <stdio.h>
#include <string.h>

#include "buildinfo.h"
#include "cli/cli.h"
#include "cli/fleet.h"
#include "cli/login.h"
#include "cli/query.h"
#include "cli/scaling.h"
#include "cli/submit.h"

struct command {
    const char *name;
    int (*main)(struct cli *c, int argc, char **argv);
    const char *usage;
    const char *summary;
};

static int version_main(struct cli *c, int argc, char **argv)
{
    (void)c;
    (void)argc;
    (void)argv;
    printf("ppbench %s\n", PPBENCH_VERSION);
    return CLI_OK;
}

static const char version_usage[] = "usage: ppbench version\n";

static const struct command commands[] = {
    {"submit", submit_main, submit_usage, "submit a job and follow it to its results"},
    {"jobs", query_jobs_main, query_jobs_usage, "list jobs, newest first"},
    {"results", query_results_main, query_results_usage, "list stored results (table, csv or json)"},
    {"cancel", query_cancel_main, query_cancel_usage, "cancel a queued or running job"},
    {"platforms", query_platforms_main, query_platforms_usage, "list the platforms of the fleet"},
    {"pp", query_pp_main, query_pp_usage, "performance portability of each application over platforms"},
    {"scaling", scaling_main, scaling_usage,
     "a suite's figure of merit against problem size on one platform"},
    {"schedules", fleet_schedules_main, fleet_schedules_usage,
     "list, create, pause, resume or run schedules"},
    {"health", fleet_health_main, fleet_health_usage, "platforms that need attention, and why"},
    {"login", login_main, login_usage, "check an API token against the server and save it"},
    {"version", version_main, version_usage, "print the version of this client"},
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
    fprintf(f, "usage: ppbench [--server URL] [--token T] [--json] <command> [options]\n\ncommands:\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(f, "  %-11s%s\n", commands[i].name, commands[i].summary);
    fprintf(
        f, "\n"
           "global options (before or after the command):\n"
           "  --server URL   ppbenchd's address (default $PPBENCH_SERVER, else the one ppbench login saved,\n"
           "                 else http://127.0.0.1:8080)\n"
           "  --token T      API token (default $PPBENCH_TOKEN, else the file ~/.config/ppbench/token that\n"
           "                 `ppbench login` checks and saves)\n"
           "  --json         print the server's JSON instead of a table, where it applies\n"
           "\n"
           "`ppbench COMMAND --help` describes a command.\n"
           "exit status: 0 done (job succeeded), 1 job failed, 2 bad usage or refused by the server (4xx),\n"
           "3 job cancelled, 4 server unreachable or failing (5xx)\n");
}

static const struct command *find(const char *name)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        CLI_GLOBAL_OPTIONS,
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    const struct command *cmd;
    struct pp_error err;
    struct cli c;
    int opt, status;

    if (cli_init(&c, &err))
        return cli_usage_error("%s", err.msg);
    optind = 0;
    while ((opt = cli_getopt(&c, argc, argv, "+:h", longopts)) != -1) {
        if (opt == 'h') {
            usage(stdout);
            return CLI_OK;
        }
        if (opt == 'V')
            return version_main(&c, 0, NULL);
        return CLI_USAGE; /* cli_getopt said what */
    }
    if (optind >= argc) {
        usage(stderr);
        return CLI_USAGE;
    }
    if (strcmp(argv[optind], "help") == 0) {
        cmd = optind + 1 < argc ? find(argv[optind + 1]) : NULL;
        if (optind + 1 < argc && !cmd)
            return cli_usage_error("unknown command \"%s\"", argv[optind + 1]);
        if (cmd)
            fputs(cmd->usage, stdout);
        else
            usage(stdout);
        return CLI_OK;
    }
    cmd = find(argv[optind]);
    if (!cmd) {
        cli_usage_error("unknown command \"%s\" (see ppbench --help)", argv[optind]);
        return CLI_USAGE;
    }
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
        return cli_usage_error("cannot initialise libcurl");
    status = cmd->main(&c, argc - optind, argv + optind);
    curl_global_cleanup();
    return status;
}
