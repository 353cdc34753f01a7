/*
 * test_hacc_flops: the flop counts of the HACC suite (HACC_FLOPS_GRAVITY, HACC_FLOPS_SPH in kernels/hacc/hacc.h,
 * the figures' "flops_per_interaction") are what kernels/hacc/hacc_pair.h computes, counted by the rules of
 * docs/METHODOLOGY.md: the pair functions are instantiated over a number type that counts each +, -, x, / as 1,
 * sqrt and the reciprocal square root (RSQRT) as 1, and comparisons, selects, negation and conversions as 0; the
 * term is accumulated as the kernels do (a += term). An interaction inside the support is counted on each branch
 * of the spline: each path must give the table's count; a receding pair skips the viscosity's 5.
 */
#include <cmath>
#include <cstdio>

#include "kernels/hacc/hacc.h"
#include "kernels/hacc/hacc_ops.h"

static long flops;

/* A double that counts the arithmetic done on it. */
struct Counted {
    double v;
    Counted(double x = 0) : v(x) {}
};
static Counted operator+(Counted a, Counted b) { return flops++, Counted(a.v + b.v); }
static Counted operator-(Counted a, Counted b) { return flops++, Counted(a.v - b.v); }
static Counted operator*(Counted a, Counted b) { return flops++, Counted(a.v * b.v); }
static Counted operator/(Counted a, Counted b) { return flops++, Counted(a.v / b.v); }
static Counted operator-(Counted a) { return Counted(-a.v); }
static bool operator<(Counted a, Counted b) { return a.v < b.v; }
static bool operator>(Counted a, Counted b) { return a.v > b.v; }
static Counted sqrt_counted(Counted a) { return flops++, Counted(std::sqrt(a.v)); }
static Counted rsqrt_counted(Counted a) { return flops++, Counted(1 / std::sqrt(a.v)); }

#define REAL Counted
#define SQRT sqrt_counted
#define RSQRT rsqrt_counted
#define KERNEL(name) name
#include "kernels/hacc/hacc_pair.h"

static int failures;

static void expect(const char *what, long got, long want)
{
    if (got != want) {
        printf("FAIL test_hacc_flops: %s: %ld flops, the table says %ld\n", what, got, want);
        failures++;
    }
}

/* One gravity interaction at distance r (inside rmax), accumulated. */
static long gravity_at(double r)
{
    Counted ax = 0, ay = 0, az = 0;
    flops = 0;
    term t = gravity_pair(0, 0, 0, r, 0, 0, 1.0);
    ax = ax + t.x, ay = ay + t.y, az = az + t.z;
    return flops;
}

/* One sph interaction of particles at distance r with smoothing lengths hi, hj, approaching (w < 0) or not. */
static long sph_at(double r, double hi, double hj, bool approaching)
{
    sph_particle i = {0, 0, 0, approaching ? 1.0 : -1.0, 0, 0, 1, 1, hi};
    sph_particle j = {r, 0, 0, 0, 0, 0, 1, 1.1, hj};
    Counted ax = 0, ay = 0, az = 0, du = 0;
    flops = 0;
    term t = sph_pair(i, j);
    ax = ax + t.x, ay = ay + t.y, az = az + t.z, du = du + t.du;
    return flops;
}

int main()
{
    expect("gravity inside rmax", gravity_at(1.5), HACC_FLOPS_GRAVITY);
    expect("gravity close", gravity_at(0.2), HACC_FLOPS_GRAVITY);
    /* spline branches: q < 1 for both, 1 <= q < 2 for both, one of each; viscosity on and off */
    expect("sph, q < 1 twice, approaching", sph_at(0.5, 0.9, 0.95, true), HACC_FLOPS_SPH);
    expect("sph, 1 <= q < 2 twice, approaching", sph_at(1.5, 0.9, 0.95, true), HACC_FLOPS_SPH);
    expect("sph, one of each, approaching", sph_at(0.85, 0.8, 0.95, true), HACC_FLOPS_SPH);
    /* a receding pair (w >= 0) has no viscosity term: mu's 5 flops are not done; the count is the formula's */
    expect("sph, receding: all but the viscosity's 5", sph_at(0.85, 0.8, 0.95, false), HACC_FLOPS_SPH - 5);
    if (!failures)
        printf("PASS test_hacc_flops: gravity %d and sph %d flops per interaction, on every path\n",
               HACC_FLOPS_GRAVITY, HACC_FLOPS_SPH);
    return failures != 0;
}
