/*
 * ppbench-worker: entry point. Dispatches to the standalone commands (worker/run.c) and to the job loop that
 * serves one platform for ppbenchd (worker/serve.c).
 */
#include <stdio.h>
#include <string.h>

#include "buildinfo.h"
#include "kernels/registry.h"
#include "worker/health.h"
#include "worker/run.h"
#include "worker/serve.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: ppbench-worker <command> [options]\n"
            "  list [--json]                        platforms on this host and the models that drive them\n"
            "  run --platform ID --model M --suite stream [--arraysize N] [--numtimes K] [--float]\n"
            "      [--kernels copy,mul,...] [--csv | --json]\n"
            "                                       run a suite here, no server (run --help for more)\n"
            "  suites [--json]                      the suites, their kernels and parameters\n"
            "  serve --server URL --platform ID [--token TOKEN]\n"
            "                                       serve a platform for ppbenchd (serve --help for more)\n"
            "  health [--min-gbs X] [--drain]       quick node check (a small verified STREAM per device),\n"
            "                                       NHC exit codes: for Slurm's HealthCheckProgram\n"
            "  version                              print the version and the built models\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return RUN_USAGE;
    }
    if (strcmp(argv[1], "list") == 0)
        return run_list_main(argc - 1, argv + 1);
    if (strcmp(argv[1], "run") == 0)
        return run_main(argc - 1, argv + 1);
    if (strcmp(argv[1], "suites") == 0)
        return run_suites_main(argc - 1, argv + 1);
    if (strcmp(argv[1], "serve") == 0)
        return serve_main(argc - 1, argv + 1);
    if (strcmp(argv[1], "health") == 0)
        return health_main(argc - 1, argv + 1);
    if (strcmp(argv[1], "version") == 0 || strcmp(argv[1], "--version") == 0) {
        printf("ppbench-worker %s (models: %s)\n", PPBENCH_VERSION, registry_names());
        return RUN_OK;
    }
    if (strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(stdout);
        return RUN_OK;
    }
    fprintf(stderr, "ppbench-worker: unknown command \"%s\"\n", argv[1]);
    usage(stderr);
    return RUN_USAGE;
}
