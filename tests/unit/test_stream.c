/*
 * Unit tests of the STREAM driver, its serial reference and the shared statistics, without any device: the
 * math is checked against hand-computed values, and the driver against the OpenMP backend at small sizes.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "check.h"
#include "kernels/openmp/openmp.h"
#include "kernels/stream/stream.h"
#include "kernels/stream/stream_ref.h"
#include "lib/stats.h"

static void test_stats(void)
{
    const double odd[] = {3, 1, 2}, even[] = {4, 1, 3, 2};
    struct pp_stats s;

    stats_compute(odd, 3, &s);
    CHECK(s.min == 1 && s.max == 3 && s.mean == 2 && s.median == 2, "odd: %g %g %g %g", s.min, s.max, s.mean,
          s.median);
    CHECK(fabs(s.stddev - 1.0) < 1e-15, "sample stddev of 1,2,3 is 1, got %g", s.stddev);
    stats_compute(even, 4, &s);
    CHECK(s.median == 2.5, "even median 2.5, got %g", s.median);
    CHECK(even[0] == 4, "input left unsorted");
    stats_compute(odd, 0, &s);
    CHECK(s.count == 0 && s.min == 0, "empty series");
}

static void test_kernel_parse(void)
{
    unsigned mask;
    struct pp_error err;

    CHECK(stream_kernels_parse("copy,triad", &mask, &err) == 0 &&
              mask == ((1u << STREAM_COPY) | (1u << STREAM_TRIAD)),
          "copy,triad -> %#x", mask);
    CHECK(stream_kernels_parse("nstream", &mask, &err) == 0 && mask == 1u << STREAM_NSTREAM, "nstream");
    CHECK(stream_kernels_parse("copy,tri", &mask, &err) == -1 && strstr(err.msg, "unknown kernel \"tri\""),
          "prefix is not a kernel: %s", err.msg);
    CHECK(stream_kernels_parse("", &mask, &err) == -1 && strstr(err.msg, "no kernel"), "empty list");
}

static void test_replay_by_hand(void)
{
    struct stream_params p;
    struct stream_gold g;

    stream_params_default(&p);
    p.n = 10;
    p.numtimes = 1;
    p.kernels = STREAM_ALL_KERNELS & ~(1u << STREAM_NSTREAM);
    stream_ref_replay(&p, &g);
    /* c = 0.1; b = 0.04; c = 0.14; a = 0.04 + 0.4 * 0.14 = 0.096; sum = 0.096 * 0.04 * 10 */
    CHECK(fabs(g.c - 0.14) < 1e-15 && fabs(g.b - 0.04) < 1e-15 && fabs(g.a - 0.096) < 1e-15, "a %g b %g c %g",
          g.a, g.b, g.c);
    CHECK(fabs(g.sum - 0.0384) < 1e-15, "sum %g", g.sum);

    p.kernels = 1u << STREAM_NSTREAM; /* a += b + s c with b = 0.2, c = 0, twice */
    p.numtimes = 2;
    stream_ref_replay(&p, &g);
    CHECK(fabs(g.a - 0.5) < 1e-15 && g.b == 0.2 && g.c == 0.0, "nstream alone: a %g", g.a);

    p.prec = PP_FP32;
    p.kernels = 1u << STREAM_TRIAD;
    stream_ref_replay(&p, &g);
    CHECK(g.a == (double)0.2f, "fp32 replay rounds to float: a %.17g", g.a);
}

static void test_check_array(void)
{
    double x[100];
    float xf[4] = {1, 1, 1, 1};
    size_t worst;
    double v, e, tol = stream_ref_element_tolerance(PP_FP64);

    for (int i = 0; i < 100; i++)
        x[i] = 0.5;
    CHECK(stream_ref_check_array(x, 100, PP_FP64, 0.5, tol, &worst, &v, &e) == 1 && e == 0, "exact passes");
    x[42] = 0.5 * (1 + 50 * DBL_EPSILON);
    CHECK(stream_ref_check_array(x, 100, PP_FP64, 0.5, tol, &worst, &v, &e) == 1, "50 eps passes");
    x[17] = 0.5 * (1 + 1e-9);
    CHECK(stream_ref_check_array(x, 100, PP_FP64, 0.5, tol, &worst, &v, &e) == 0 && worst == 17,
          "1e-9 fails at 17, got %zu", worst);
    x[99] = NAN;
    CHECK(stream_ref_check_array(x, 100, PP_FP64, 0.5, tol, &worst, &v, &e) == 0 && worst == 99 && isinf(e),
          "NaN is the worst, got %zu", worst);
    xf[3] = 1.0f + 200 * FLT_EPSILON;
    CHECK(stream_ref_check_array(xf, 4, PP_FP32, 1.0, stream_ref_element_tolerance(PP_FP32), &worst, &v,
                                 &e) == 0 &&
              worst == 3,
          "fp32 200 eps fails");
}

static void test_dot_tolerance(void)
{
    CHECK(stream_ref_dot_tolerance(PP_FP64, 10) == 100 * DBL_EPSILON, "floor of 100 eps");
    CHECK(stream_ref_dot_tolerance(PP_FP32, 1000) == 1002 * (double)FLT_EPSILON, "grows with the chain");
}

static void test_check_params(void)
{
    struct stream_params p;
    struct pp_device dev;
    struct pp_error err;

    memset(&dev, 0, sizeof(dev));
    snprintf(dev.name, sizeof(dev.name), "test device");
    dev.mem_bytes = 1000 * 1000;
    dev.fp64 = true;
    stream_params_default(&p);
    p.n = 1000;
    CHECK(stream_check(&p, &dev, &err) == 0, "fits: %s", err.msg);
    p.numtimes = 1;
    CHECK(stream_check(&p, &dev, &err) == -1 && strstr(err.msg, "numtimes"), "numtimes 1");
    p.numtimes = 2;
    p.n = 50 * 1000;
    CHECK(stream_check(&p, &dev, &err) == -1 && strstr(err.msg, "does not fit"), "too big: %s", err.msg);
    p.prec = PP_FP32; /* 3 x 50000 x 4 = 600 kB fits */
    CHECK(stream_check(&p, &dev, &err) == 0, "fp32 fits");
    dev.max_alloc_bytes = 100 * 1000;
    CHECK(stream_check(&p, &dev, &err) == -1 && strstr(err.msg, "largest allocation"), "max alloc: %s",
          err.msg);
    dev.fp64 = false;
    p.prec = PP_FP64;
    p.n = 10;
    CHECK(stream_check(&p, &dev, &err) == -1 && strstr(err.msg, "fp64"), "no fp64");
}

/* The default array size: 2^25, doubled on a CPU with a known cache until the three arrays are at least 4x
 * it, at most 2^27 (a VM's reported L3 of hundreds of MiB made it 2^28 before the cap). */
static void test_default_n(void)
{
    struct pp_device cpu = {.kind = PP_DEVICE_CPU, .fp64 = true}, gpu = {.kind = PP_DEVICE_GPU, .fp64 = true};
    struct stream_params p;
    struct pp_error err;

    CHECK(stream_default_n(&cpu, PP_FP64) == STREAM_DEFAULT_N, "unknown cache: %zu",
          stream_default_n(&cpu, PP_FP64));
    cpu.llc_bytes = 32u << 20; /* three 2^25 fp32 arrays = 384 MiB >= 4 x 32 MiB */
    CHECK(stream_default_n(&cpu, PP_FP64) == STREAM_DEFAULT_N &&
              stream_default_n(&cpu, PP_FP32) == STREAM_DEFAULT_N,
          "32 MiB: %zu, %zu", stream_default_n(&cpu, PP_FP64), stream_default_n(&cpu, PP_FP32));
    cpu.llc_bytes = 128u << 20; /* 512 MiB: 2^25 in fp64 (768 MiB), 2^26 in fp32 (768 MiB) */
    CHECK(stream_default_n(&cpu, PP_FP64) == 1u << 25 && stream_default_n(&cpu, PP_FP32) == 1u << 26,
          "128 MiB: %zu, %zu", stream_default_n(&cpu, PP_FP64), stream_default_n(&cpu, PP_FP32));
    cpu.llc_bytes =
        300u << 20; /* a VM's L3: 1200 MiB; 2^26 fp64 is 1536 MiB (it was 2^28 by the array rule) */
    CHECK(stream_default_n(&cpu, PP_FP64) == 1u << 26, "300 MiB: %zu", stream_default_n(&cpu, PP_FP64));
    cpu.llc_bytes = 4ull << 30; /* a cache no array of a sensible run exceeds: the cap */
    CHECK(stream_default_n(&cpu, PP_FP64) == STREAM_MAX_DEFAULT_N &&
              stream_default_n(&cpu, PP_FP32) == STREAM_MAX_DEFAULT_N && STREAM_MAX_DEFAULT_N == 1u << 27,
          "4 GiB: %zu, %zu", stream_default_n(&cpu, PP_FP64), stream_default_n(&cpu, PP_FP32));
    cpu.llc_bytes = 100000000; /* 400 MB: three 2^24 fp64 arrays would be 403 MB, 2^25 805 MB */
    CHECK(stream_default_n(&cpu, PP_FP64) == 1u << 25, "100 MB: %zu", stream_default_n(&cpu, PP_FP64));
    cpu.llc_bytes = 300u << 20;
    gpu.llc_bytes = 50u << 20; /* GPUs keep 2^25 */
    CHECK(stream_default_n(&gpu, PP_FP32) == STREAM_DEFAULT_N, "GPU: %zu", stream_default_n(&gpu, PP_FP32));
    stream_params_default(&p);
    p.n = 0;
    CHECK(stream_resolve(&p, &cpu, &err) == 0 && p.n == 1u << 26, "resolve: %zu %s", p.n, err.msg);
    p.n = 1000;
    CHECK(stream_resolve(&p, &cpu, &err) == 0 && p.n == 1000, "a given size stays: %zu", p.n);
}

static unsigned progress_calls, progress_total;
static void on_progress(void *arg, unsigned done, unsigned total)
{
    (void)arg;
    progress_calls = done;
    progress_total = total;
}

static void test_driver_openmp(void)
{
    const struct pp_backend *b = &pp_backend_openmp;
    struct pp_device_list devs = {0};
    struct pp_ctx *ctx;
    struct stream_params p;
    struct stream_result res;
    struct pp_error err;

    CHECK(b->discover(&devs, &err) == 0 && devs.len == 1, "one host device");
    CHECK(b->open(&devs.items[0], &ctx, &err) == 0, "open");
    stream_params_default(&p);
    p.n = 12345;
    p.numtimes = 4;
    p.progress = on_progress;
    CHECK(stream_run(b, ctx, &p, &res, &err) == 0, "run: %s", err.msg);
    CHECK(res.verified && res.nkernels == 6, "verified %d, %zu kernels", res.verified, res.nkernels);
    CHECK(progress_calls == 8 && progress_total == 8, "progress %u of %u (4 classic + 4 nstream)",
          progress_calls, progress_total);
    CHECK(res.kernels[0].stats.count == 3, "warm-up excluded");
    CHECK(res.kernels[STREAM_TRIAD].bytes == 3.0 * 12345 * 8 &&
              res.kernels[STREAM_TRIAD].flops == 2.0 * 12345,
          "triad models");
    stream_result_release(&res);
    b->close(ctx);
}

int main(void)
{
    RUN(test_stats);
    RUN(test_kernel_parse);
    RUN(test_replay_by_hand);
    RUN(test_check_array);
    RUN(test_dot_tolerance);
    RUN(test_check_params);
    RUN(test_default_n);
    RUN(test_driver_openmp);
    return check_failures ? 1 : 0;
}
