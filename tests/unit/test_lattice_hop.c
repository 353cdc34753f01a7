/*
 * test_lattice_hop: the hops the GPU kernels compute (kernels/lattice_hop.h) against the drivers' tables,
 * which come from kernels/lattice.h (lattice_shift on the full lattice, checkerboard index s / 2): every odd
 * site, every direction, steps +-1 (Wilson) and +-3 (staggered long links), on lattices with unequal extents,
 * the smallest (4, where a third-neighbour hop aliases) and a large x; and the element indices of the aosoa
 * layout (kernels/wilson/wilson_dslash.h) as a bijection onto whole blocks.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kernels/lattice.h"
#include "kernels/lattice_hop.h"
#include "kernels/wilson/wilson_layout.h"

static const int steps[] = {1, -1, 3, -3};

/* Every hop of every odd site of dims against the table's: the number that differ. */
static size_t hop_mismatches(const unsigned dims[4])
{
    const size_t volume = lattice_volume(dims);
    size_t bad = 0;

    for (size_t s = 0; s < volume; s++) {
        unsigned c[4];

        lattice_coords(dims, s, c);
        if (lattice_parity(c) == 0)
            continue;
        for (int mu = 0; mu < 4; mu++)
            for (size_t k = 0; k < sizeof(steps) / sizeof(steps[0]); k++) {
                size_t want = lattice_shift(dims, s, mu, steps[k]) / 2;
                unsigned got =
                    lattice_hop_odd((unsigned)(s / 2), dims[0] / 2, dims[1], dims[2], dims[3], mu, steps[k]);

                if (got != want && bad++ < 3)
                    printf("    site %zu mu %d step %d: %u, the table %zu\n", s, mu, steps[k], got, want);
            }
    }
    return bad;
}

static void test_hops_match_the_table(void)
{
    static const unsigned shapes[][4] = {
        {4, 4, 4, 4}, {8, 4, 6, 10}, {6, 10, 4, 8}, {32, 4, 4, 6}, {4, 6, 8, 4}};

    for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
        size_t bad = hop_mismatches(shapes[i]);

        CHECK(bad == 0, "%ux%ux%ux%u: %zu hops differ from the table", shapes[i][0], shapes[i][1],
              shapes[i][2], shapes[i][3], bad);
    }
}

/* The aosoa layout's element indices of n sites (not a whole number of blocks) of P reals: each index below
 * wilson_layout_sites(aosoa, n) x P, none twice, each block's component c one run of 32. */
static void test_aosoa_indices(void)
{
    const size_t n = 77, per_site = 24, sites = wilson_layout_sites(PP_WILSON_AOSOA, n);
    const int soa = wilson_layout_index(PP_WILSON_AOSOA);
    unsigned char *seen = calloc(sites * per_site, 1);
    size_t twice = 0, outside = 0, unrun = 0;

    CHECK(sites == 96 && soa == WILSON_AOSOA_BLOCK, "77 sites span %zu (soa %d)", sites, soa);
    if (!seen)
        return;
    for (size_t s = 0; s < n; s++)
        for (size_t c = 0; c < per_site; c++) {
            size_t e = WILSON_INDEX(soa, n, s, per_site, c);

            if (e >= sites * per_site) {
                outside++;
                continue;
            }
            twice += seen[e]++ > 0;
            if (s % 32 && e != WILSON_INDEX(soa, n, s - 1, per_site, c) + 1)
                unrun++;
        }
    CHECK(!twice && !outside && !unrun, "%zu indices twice, %zu outside, %zu not in runs", twice, outside,
          unrun);
    CHECK(wilson_layout_index(PP_WILSON_SOA) == 1 && wilson_layout_index(PP_WILSON_AOS) == 0 &&
              wilson_layout_sites(PP_WILSON_SOA, n) == n,
          "the soa and aos layouts are unchanged");
    free(seen);
}

int main(void)
{
    RUN(test_hops_match_the_table);
    RUN(test_aosoa_indices);
    return check_failures ? 1 : 0;
}
