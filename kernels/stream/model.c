/*
 * stream/model: see model.h. Pure; any thread.
 */
#include "kernels/stream/model.h"

/* Per element (paper 004: 2N, 2N, 3N, 3N, 2N words; nstream 4N): the arrays each kernel reads and writes,
 * and its floating-point operations. Write-allocate traffic is not counted (what the kernel must move). */
static const struct {
    unsigned arrays, flops;
} model[STREAM_NKERNELS] = {
    [STREAM_COPY] = {2, 0},  [STREAM_MUL] = {2, 1}, [STREAM_ADD] = {3, 1},
    [STREAM_TRIAD] = {3, 2}, [STREAM_DOT] = {2, 2}, [STREAM_NSTREAM] = {4, 3},
};

void stream_model(enum stream_kernel k, size_t n, enum pp_precision prec, struct suite_model *out)
{
    out->bytes = (double)model[k].arrays * (double)n * (double)pp_precision_bytes(prec);
    out->bytes_compulsory = out->bytes; /* BabelStream's weights are the compulsory traffic */
    out->flops = (double)model[k].flops * (double)n;
}

int stream_model_problem(const json_t *problem, struct suite_model *out, struct suite_error *e)
{
    enum pp_precision prec;
    long long n;

    /* size, not array_size: size is what report_check holds to the job and what the problem key counts */
    if (suite_problem_precision(problem, &prec, e) ||
        suite_problem_int(problem, "size", 1, STREAM_MAX_N, &n, e))
        return -1;
    for (unsigned k = 0; k < STREAM_NKERNELS; k++)
        stream_model((enum stream_kernel)k, (size_t)n, prec, &out[k]);
    return 0;
}
