/*
 * cg: the CG suite on one device of one model, outside the worker (the runner wiring is the lead's): a size
 * sweep printing, per kernel, the minimum time, the compulsory-traffic bandwidth, GFLOP/s and the check, with
 * the STREAM triad of the same call as the reference line. Built by bench/gpu/cg.sh against the build tree.
 * Usage: cg MODEL DEVICE "N1 N2 ..." [fp32] [cusparse] [rows_per_group items_per_row] (env ITER, NUMTIMES)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/cg/cg.h"
#include "kernels/registry.h"
#include "kernels/stream/stream.h"

int main(int argc, char **argv)
{
    const struct pp_backend *b;
    struct pp_device_list devs = {0};
    struct pp_ctx *ctx;
    struct pp_error err;
    char *sizes, *tok;
    int devi;

    if (argc < 4 || !(b = registry_find(argv[1]))) {
        fprintf(stderr, "usage: cg MODEL DEVICE \"N ...\" [fp32] [cusparse] [RPG ITEMS]\n");
        return 2;
    }
    devi = atoi(argv[2]);
    if (b->discover(&devs, &err) || devi >= (int)devs.len || b->open(&devs.items[devi], &ctx, &err)) {
        fprintf(stderr, "%s: %s\n", argv[1], err.msg);
        return 1;
    }
    {
        struct stream_params sp;
        struct stream_result sr;
        stream_params_default(&sp);
        sp.kernels = 1u << STREAM_TRIAD;
        sp.prec = argc > 4 && !strcmp(argv[4], "fp32") ? PP_FP32 : PP_FP64;
        if (devs.items[devi].kind == PP_DEVICE_CPU)
            sp.n = 1u << 26;
        else
            sp.n = 1u << 27;
        sp.numtimes = 20;
        if (stream_run(b, ctx, &sp, &sr, &err) == 0)
            printf("stream triad n=%zu: %.1f GB/s verified %d\n", sp.n, sr.kernels[0].bandwidth * 1e-9,
                   sr.verified);
        else
            printf("stream: %s\n", err.msg);
        stream_result_release(&sr);
    }
    printf("%-6s %10s %11s %-6s %11s %9s %8s %s\n", "n", "rows", "nnz", "kernel", "min_s", "GB/s", "GFLOP/s",
           "check");
    sizes = strdup(argv[3]);
    for (tok = strtok(sizes, " ,"); tok; tok = strtok(NULL, " ,")) {
        struct cg_params p;
        struct cg_result res;

        cg_params_default(&p);
        p.n = (unsigned)atoi(tok);
        for (int a = 4; a < argc; a++) {
            if (!strcmp(argv[a], "fp32"))
                p.prec = PP_FP32;
            else if (!strcmp(argv[a], "cusparse"))
                p.variant.spmv = PP_CG_SPMV_CUSPARSE;
            else if (a + 1 < argc) {
                p.variant.rows_per_group = (unsigned)atoi(argv[a]);
                p.variant.items_per_row = (unsigned)atoi(argv[++a]);
            }
        }
        if (getenv("ITER"))
            p.iterations = (unsigned)atoi(getenv("ITER"));
        if (getenv("NUMTIMES"))
            p.numtimes = (unsigned)atoi(getenv("NUMTIMES"));
        if (getenv("KERNELS") && cg_kernels_parse(getenv("KERNELS"), &p.kernels, &err)) {
            fprintf(stderr, "%s\n", err.msg);
            return 2;
        }
        if (cg_resolve(&p, &devs.items[devi], &err) || cg_run(b, ctx, &p, &res, &err)) {
            printf("n=%u: %s\n", p.n, err.msg);
            continue;
        }
        for (size_t k = 0; k < res.nkernels; k++) {
            const struct cg_kernel_result *kr = &res.kernels[k];
            printf("%-6u %10zu %11zu %-6s %11.4e %9.1f %8.1f %s %.2g %s\n", p.n, res.rows, res.nnz,
                   cg_kernel_name(kr->kernel), kr->stats.min, kr->bandwidth * 1e-9, kr->gflops,
                   kr->verified ? "ok" : "FAIL", kr->max_rel_err, kr->detail);
        }
        printf("       variant %s rpg %u items %u wg %u; cg %u iterations (%s), residual %.3g -> %.3g\n",
               cg_spmv_name(res.variant.spmv), res.variant.rows_per_group, res.variant.items_per_row,
               res.variant.work_group, res.cg_iterations, cg_status_name(res.status), res.residual[0],
               res.residual[res.cg_iterations]);
        fflush(stdout);
        cg_result_release(&res);
    }
    free(sizes);
    b->close(ctx);
    return 0;
}
