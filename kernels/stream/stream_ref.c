/*
 * stream_ref: serial reference and checks for STREAM. Pure functions, any thread.
 *
 * The replay follows the driver's run order exactly: numtimes iterations of the selected classic kernels
 * (copy, mul, add, triad, dot), then numtimes iterations of nstream. It is written once per precision so that
 * every operation rounds as the device's does (C11 mode: no contraction into FMA here; a device FMA differs
 * by one rounding per step, far inside the bound).
 */
#include "stream_ref.h"

#include <float.h>
#include <math.h>

#define has(p, k) (((p)->kernels >> (k)) & 1u)

#define DEFINE_REPLAY(T, NAME)                                                                               \
    static void NAME(const struct stream_params *p, struct stream_gold *g)                                   \
    {                                                                                                        \
        T a = (T)STREAM_START_A, b = (T)STREAM_START_B, c = (T)STREAM_START_C, s = (T)STREAM_SCALAR;         \
        bool classic = p->kernels & ((1u << STREAM_COPY) | (1u << STREAM_MUL) | (1u << STREAM_ADD) |         \
                                     (1u << STREAM_TRIAD) | (1u << STREAM_DOT));                             \
        for (unsigned k = 0; classic && k < p->numtimes; k++) {                                              \
            if (has(p, STREAM_COPY))                                                                         \
                c = a;                                                                                       \
            if (has(p, STREAM_MUL))                                                                          \
                b = s * c;                                                                                   \
            if (has(p, STREAM_ADD))                                                                          \
                c = a + b;                                                                                   \
            if (has(p, STREAM_TRIAD)) {                                                                      \
                T t = s * c;                                                                                 \
                a = b + t;                                                                                   \
            }                                                                                                \
        }                                                                                                    \
        g->sum = (double)a * (double)b * (double)p->n;                                                       \
        for (unsigned k = 0; has(p, STREAM_NSTREAM) && k < p->numtimes; k++) {                               \
            T t = s * c;                                                                                     \
            T u = b + t;                                                                                     \
            a = a + u;                                                                                       \
        }                                                                                                    \
        g->a = a;                                                                                            \
        g->b = b;                                                                                            \
        g->c = c;                                                                                            \
    }

DEFINE_REPLAY(float, replay_fp32)
DEFINE_REPLAY(double, replay_fp64)

void stream_ref_replay(const struct stream_params *p, struct stream_gold *gold)
{
    if (p->prec == PP_FP32)
        replay_fp32(p, gold);
    else
        replay_fp64(p, gold);
}

static double epsilon(enum pp_precision prec)
{
    return prec == PP_FP32 ? FLT_EPSILON : DBL_EPSILON;
}

double stream_ref_element_tolerance(enum pp_precision prec)
{
    return 100.0 * epsilon(prec);
}

double stream_ref_dot_tolerance(enum pp_precision prec, unsigned long long chain)
{
    /* Recursive summation of m positive terms has relative error below (m - 1) u (u = eps / 2), and each
     * product adds one rounding: eps * (chain + 2) bounds it with room to spare. */
    double bound = epsilon(prec) * ((double)chain + 2.0);
    return fmax(bound, 100.0 * epsilon(prec));
}

static double rel_err(double x, double expect)
{
    double d = fabs(x - expect);
    return expect != 0.0 ? d / fabs(expect) : d;
}

int stream_ref_check_array(const void *x, size_t n, enum pp_precision prec, double expect, double tol,
                           size_t *worst, double *worst_value, double *worst_err)
{
    const float *xf = x;
    const double *xd = x;

    *worst = 0;
    *worst_err = 0.0;
    *worst_value = n ? (prec == PP_FP32 ? xf[0] : xd[0]) : expect;
    for (size_t i = 0; i < n; i++) {
        double v = prec == PP_FP32 ? (double)xf[i] : xd[i];
        double e = rel_err(v, expect);
        if (isnan(e))
            e = INFINITY;
        if (e > *worst_err) {
            *worst_err = e;
            *worst = i;
            *worst_value = v;
        }
    }
    return *worst_err <= tol;
}
