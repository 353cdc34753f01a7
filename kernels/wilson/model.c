/*
 * wilson/model: see model.h. Pure; any thread.
 */
#include "kernels/wilson/model.h"

#include "kernels/lattice.h"
#include "kernels/wilson/wilson.h"

double wilson_bytes_per_site(enum pp_precision prec)
{
    return (8.0 * 18 + 8.0 * 24 + 24) * (double)pp_precision_bytes(prec);
}

double wilson_bytes_compulsory_per_site(enum pp_precision prec)
{
    return (8.0 * 18 + 24 + 24) * (double)pp_precision_bytes(prec);
}

void wilson_model(const unsigned dims[4], enum pp_precision prec, struct suite_model *out)
{
    const double sites = (double)(lattice_volume(dims) / 2);

    out->bytes = wilson_bytes_per_site(prec) * sites;
    out->bytes_compulsory = wilson_bytes_compulsory_per_site(prec) * sites;
    out->flops = (double)WILSON_FLOPS_PER_SITE * sites;
}

int wilson_model_problem(const json_t *problem, struct suite_model *out, struct suite_error *e)
{
    enum pp_precision prec;
    unsigned dims[4];

    if (suite_problem_precision(problem, &prec, e) || suite_problem_lattice(problem, dims, e) ||
        suite_problem_size(problem, (long long)lattice_volume(dims), "its lattice", e))
        return -1;
    wilson_model(dims, prec, out);
    return 0;
}
