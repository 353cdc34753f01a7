/*
 * lattice: the lattice geometry, random fields and test-fault hook shared by the lattice QCD suites. Pure
 * functions, any thread.
 */
#include "lattice.h"

#include <math.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/cpucache.h"

static const char axis[4] = {'x', 'y', 'z', 't'};

int lattice_parse(const char *s, unsigned dims[4], struct pp_error *err)
{
    const char *p = s;

    for (int mu = 0; mu < 4; mu++) {
        unsigned long v = 0;
        size_t len = strspn(p, "0123456789");

        if (len == 0 || len > 7)
            goto bad;
        for (size_t i = 0; i < len; i++)
            v = v * 10 + (unsigned long)(p[i] - '0');
        if (v == 0)
            goto bad;
        dims[mu] = (unsigned)v;
        p += len;
        if (*p != (mu < 3 ? 'x' : '\0'))
            goto bad;
        if (mu < 3)
            p++;
    }
    return 0;
bad:
    return pp_error_set(err, "invalid --lattice \"%s\": expected four extents X x Y x Z x T, like 8x8x8x16",
                        s);
}

int lattice_check_extents(const unsigned dims[4], struct pp_error *err)
{
    uint64_t volume = 1;

    for (int mu = 0; mu < 4; mu++)
        if (dims[mu] < LATTICE_MIN_EXTENT || dims[mu] % 2)
            return pp_error_set(err, "lattice extent %u in %c must be even and at least %d", dims[mu],
                                axis[mu], LATTICE_MIN_EXTENT);
    /* the product checked step by step: four 7-digit extents overflow 64 bits */
    for (int mu = 0; mu < 4; mu++)
        if (__builtin_mul_overflow(volume, (uint64_t)dims[mu], &volume) || volume / 2 > UINT32_MAX)
            return pp_error_set(err, "lattice %ux%ux%ux%u too large: more than 2^32 sites per checkerboard",
                                dims[0], dims[1], dims[2], dims[3]);
    return 0;
}

int lattice_resolve(unsigned dims[4], const struct pp_device *dev, double bytes_per_site,
                    struct pp_error *err)
{
    if (!dims[0] && !dims[1] && !dims[2] && !dims[3]) {
        unsigned l = dev->kind == PP_DEVICE_CPU ? LATTICE_DEFAULT_EXTENT_CPU : LATTICE_DEFAULT_EXTENT_GPU;

        while (cpucache_default_too_small(dev, (double)l * l * l * l * bytes_per_site) && l < 256)
            l += 2;
        for (int mu = 0; mu < 4; mu++)
            dims[mu] = l;
    }
    return lattice_check_extents(dims, err);
}

int lattice_check_memory(const unsigned dims[4], const struct pp_device *dev, double device_bytes,
                         double host_bytes, struct pp_error *err)
{
    double volume = (double)lattice_volume(dims), device = volume / 2 * device_bytes;

    if (dev->kind == PP_DEVICE_CPU)
        device += volume * host_bytes; /* one memory holds both */
    if (dev->mem_bytes && device > (double)dev->mem_bytes)
        return pp_error_set(err,
                            "lattice %ux%ux%ux%u too large: its fields need %.1f GB, the device has %.1f GB",
                            dims[0], dims[1], dims[2], dims[3], device * 1e-9, (double)dev->mem_bytes * 1e-9);
    return 0;
}

size_t lattice_index(const unsigned dims[4], const unsigned c[4])
{
    return c[0] + (size_t)dims[0] * (c[1] + (size_t)dims[1] * (c[2] + (size_t)dims[2] * c[3]));
}

void lattice_coords(const unsigned dims[4], size_t s, unsigned c[4])
{
    for (int mu = 0; mu < 4; mu++) {
        c[mu] = (unsigned)(s % dims[mu]);
        s /= dims[mu];
    }
}

size_t lattice_shift(const unsigned dims[4], size_t s, int mu, int d)
{
    unsigned c[4];
    long v;

    lattice_coords(dims, s, c);
    v = ((long)c[mu] + d) % (long)dims[mu];
    c[mu] = (unsigned)(v < 0 ? v + (long)dims[mu] : v);
    return lattice_index(dims, c);
}

#define SPLITMIX_GAMMA 0x9e3779b97f4a7c15ull /* the state's step per draw */

double lattice_random(uint64_t *state)
{
    uint64_t z = (*state += SPLITMIX_GAMMA);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1.0p-52 - 1.0;
}

/* row b -= <a, b> a, with <a, b> = sum conj(a_k) b_k */
static void project_out(const double *a, double *b)
{
    double re = 0, im = 0;

    for (int k = 0; k < 3; k++) {
        re += a[2 * k] * b[2 * k] + a[2 * k + 1] * b[2 * k + 1];
        im += a[2 * k] * b[2 * k + 1] - a[2 * k + 1] * b[2 * k];
    }
    for (int k = 0; k < 3; k++) {
        b[2 * k] -= re * a[2 * k] - im * a[2 * k + 1];
        b[2 * k + 1] -= re * a[2 * k + 1] + im * a[2 * k];
    }
}

static void normalise(double *a)
{
    double n = 0;

    for (int k = 0; k < 6; k++)
        n += a[k] * a[k];
    n = 1.0 / sqrt(n);
    for (int k = 0; k < 6; k++)
        a[k] *= n;
}

void lattice_random_su3(uint64_t *state, double u[18])
{
    double dr = 0, di = 0;

    for (int k = 0; k < 18; k++)
        u[k] = lattice_random(state);
    /* Gram-Schmidt, each projection done twice: one pass loses orthogonality in proportion to how nearly
     * dependent the random rows are (up to ~1e-13 in 10^5 draws); the second brings it to rounding */
    normalise(&u[0]);
    for (int pass = 0; pass < 2; pass++)
        project_out(&u[0], &u[6]);
    normalise(&u[6]);
    for (int pass = 0; pass < 2; pass++) {
        project_out(&u[0], &u[12]);
        project_out(&u[6], &u[12]);
    }
    normalise(&u[12]);
    /* det = sum_c u2c * (u0 x u1)_c; multiplying row 2 by conj(det) makes it |det|^2 = 1 */
    for (int c = 0; c < 3; c++) {
        int a = (c + 1) % 3, b = (c + 2) % 3;
        double xr = u[2 * a] * u[6 + 2 * b] - u[2 * a + 1] * u[6 + 2 * b + 1] -
                    (u[2 * b] * u[6 + 2 * a] - u[2 * b + 1] * u[6 + 2 * a + 1]);
        double xi = u[2 * a] * u[6 + 2 * b + 1] + u[2 * a + 1] * u[6 + 2 * b] -
                    (u[2 * b] * u[6 + 2 * a + 1] + u[2 * b + 1] * u[6 + 2 * a]);
        dr += u[12 + 2 * c] * xr - u[12 + 2 * c + 1] * xi;
        di += u[12 + 2 * c] * xi + u[12 + 2 * c + 1] * xr;
    }
    for (int c = 0; c < 3; c++) {
        double re = u[12 + 2 * c], im = u[12 + 2 * c + 1];
        u[12 + 2 * c] = re * dr + im * di;
        u[12 + 2 * c + 1] = im * dr - re * di;
    }
}

void lattice_unpack_odd(const unsigned dims[4], int comps, const double *packed, double *full)
{
    size_t volume = lattice_volume(dims), w = (size_t)comps;

    for (size_t s = 0; s < volume; s++) {
        unsigned c[4];
        lattice_coords(dims, s, c);
        if (lattice_parity(c))
            memcpy(&full[s * w], &packed[(s / 2) * w], w * sizeof(double));
        else
            memset(&full[s * w], 0, w * sizeof(double));
    }
}

void lattice_check_odd(const unsigned dims[4], int comps, enum pp_precision prec, const double *packed,
                       const double *ref, const double *scale, struct lattice_check *out)
{
    static const char *const part[2] = {"re", "im"};
    size_t volume = lattice_volume(dims), w = (size_t)comps;

    memset(out, 0, sizeof(*out));
    out->tolerance = 100.0 * (prec == PP_FP32 ? 0x1.0p-23 : 0x1.0p-52);
    for (size_t s = 0; s < volume; s++) {
        unsigned c[4];
        lattice_coords(dims, s, c);
        if (!lattice_parity(c))
            continue;
        for (size_t k = 0; k < w; k++) {
            double v = packed[(s / 2) * w + k], want = ref[s * w + k];
            double e = fabs(v - want) / scale[s];
            char spin[16] = "";
            if (isnan(e))
                e = INFINITY;
            if (e <= out->max_err)
                continue;
            out->max_err = e;
            if (e <= out->tolerance || out->failed)
                continue;
            out->failed = true;
            if (w == 24)
                snprintf(spin, sizeof(spin), "spin %zu ", k / 6);
            snprintf(
                out->detail, sizeof(out->detail),
                "dslash: site (%u,%u,%u,%u) [odd index %zu] %scolour %zu %s = %.9g, expected %.9g (error "
                "%.3g of the site's scale %.3g > %.3g)",
                c[0], c[1], c[2], c[3], s / 2, spin, (k / 2) % 3, part[k % 2], v, want, e, scale[s],
                out->tolerance);
        }
    }
}

void lattice_plant_fault(size_t n, double *links, size_t link_stride, uint32_t *nbr)
{
    const char *spec = getenv("PPBENCH_TEST_FAULT");
    size_t kind_len, i = n / 2;

    if (!spec || !*spec)
        return;
    if (!strcmp(spec, "crash"))
        raise(SIGSEGV);
    kind_len = strcspn(spec, ":");
    if (spec[kind_len] == ':')
        i = strtoull(spec + kind_len + 1, NULL, 10);
    if (i >= n)
        i = n - 1;
    if (kind_len == 4 && !strncmp(spec, "link", 4))
        links[i * link_stride] += 0.5;
    else if (kind_len == 9 && !strncmp(spec, "neighbour", 9))
        nbr[i] = (uint32_t)((nbr[i] + 1) % n);
}

enum lattice_fault lattice_fault_kind(void)
{
    const char *spec = getenv("PPBENCH_TEST_FAULT");

    if (!spec)
        return LATTICE_FAULT_NONE;
    if (!strcmp(spec, "half"))
        return LATTICE_FAULT_HALF;
    if (!strcmp(spec, "first"))
        return LATTICE_FAULT_FIRST;
    if (!strcmp(spec, "warmup"))
        return LATTICE_FAULT_WARMUP;
    return LATTICE_FAULT_NONE;
}

void lattice_random_fill(uint64_t *state, double *x, size_t n)
{
    const uint64_t start = *state;

#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) {
        uint64_t st = start + (uint64_t)i * SPLITMIX_GAMMA;
        x[i] = lattice_random(&st);
    }
    *state = start + (uint64_t)n * SPLITMIX_GAMMA;
}

void lattice_random_su3_fill(uint64_t *state, double *u, size_t n)
{
    const uint64_t start = *state;

#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) {
        uint64_t st = start + (uint64_t)i * 18 * SPLITMIX_GAMMA;
        lattice_random_su3(&st, &u[i * 18]);
    }
    *state = start + (uint64_t)n * 18 * SPLITMIX_GAMMA;
}

void lattice_check_samples(const struct lattice_check *warm, const struct lattice_check *last,
                           struct suite_kernel *k)
{
    k->tolerance = last->tolerance;
    k->max_rel_err = last->max_err > warm->max_err ? last->max_err : warm->max_err;
    k->verified = !last->failed && !warm->failed;
    if (warm->failed && !last->failed)
        snprintf(k->error, sizeof(k->error), "warm-up: %s (the last sample verified)", warm->detail);
    else if (last->failed && !warm->failed)
        snprintf(k->error, sizeof(k->error), "%s (last sample only; the warm-up verified)", last->detail);
    else
        snprintf(k->error, sizeof(k->error), "%s", last->detail);
}

static int lattice_apply(void *arg, unsigned *applications, double *seconds, struct pp_error *err)
{
    const struct lattice_calls *c = arg;

    (void)seconds;
    return c->dslash(c->ctx, *applications, err);
}

static int lattice_poison(void *arg, struct pp_error *err)
{
    const struct lattice_calls *c = arg;

    return c->poison(c->ctx, err);
}

static int lattice_keep_warmup(void *arg, struct pp_error *err)
{
    const struct lattice_calls *c = arg;

    return c->download(c->ctx, c->out_warm, err);
}

struct sample_kernel lattice_sample_kernel(struct lattice_calls *c, struct suite_kernel *out)
{
    return (struct sample_kernel){.out = out,
                                  .apply = lattice_apply,
                                  .poison = lattice_poison,
                                  .keep_warmup = lattice_keep_warmup,
                                  .arg = c};
}
