/*
 * staggered/model: see model.h. Pure; any thread.
 */
#include "kernels/staggered/model.h"

#include "kernels/lattice.h"
#include "kernels/staggered/staggered.h"

double staggered_bytes_per_site(enum pp_precision prec)
{
    return (16.0 * 18 + 16.0 * 6 + 6) * (double)pp_precision_bytes(prec);
}

double staggered_bytes_compulsory_per_site(enum pp_precision prec)
{
    return (16.0 * 18 + 6 + 6) * (double)pp_precision_bytes(prec);
}

double staggered_flops(const unsigned dims[4])
{
    return (double)STAGGERED_FLOPS_PER_SITE * (double)(lattice_volume(dims) / 2);
}

void staggered_model(const unsigned dims[4], enum pp_precision prec, struct suite_model *out)
{
    const double sites = (double)(lattice_volume(dims) / 2);

    out->bytes = staggered_bytes_per_site(prec) * sites;
    out->bytes_compulsory = staggered_bytes_compulsory_per_site(prec) * sites;
    out->flops = staggered_flops(dims);
}

int staggered_model_problem(const json_t *problem, struct suite_model *out, struct suite_error *e)
{
    enum pp_precision prec;
    unsigned dims[4];

    if (suite_problem_precision(problem, &prec, e) || suite_problem_lattice(problem, dims, e) ||
        suite_problem_size(problem, (long long)lattice_volume(dims), "its lattice", e))
        return -1;
    staggered_model(dims, prec, out);
    return 0;
}
