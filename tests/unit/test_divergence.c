/*
 * test_divergence: code divergence (paper 003 Sec. 3.3) on hand-computed line sets.
 */
#include <math.h>

#include "check.h"
#include "kernels/divergence.h"

#define SET(...)                                                                                             \
    {                                                                                                        \
        (const char *const[]){__VA_ARGS__}, sizeof((const char *const[]){__VA_ARGS__}) / sizeof(char *)      \
    }

/* Three platforms: a = {1,2,3,4}, b = {1,2,3,5} (4 repeated), c = {1,2,6,7}:
 * d(a,b) = 1 - 3/5 = 0.4, d(a,c) = 1 - 2/6 = 2/3, d(b,c) = 1 - 2/6 = 2/3; CD = (0.4 + 4/3) / 3 = 26/45. */
static void test_hand_computed(void)
{
    const struct divergence_set sets[] = {SET("k.c:1", "k.c:2", "k.c:3", "k.c:4"),
                                          SET("k.c:5", "k.c:1", "k.c:2", "k.c:3", "k.c:5"),
                                          SET("k.c:1", "k.c:2", "k.c:6", "k.c:7")};
    struct pp_error err;
    double d;

    CHECK(divergence_jaccard(&sets[0], &sets[1], &d, &err) == 0 && fabs(d - 0.4) < 1e-15, "d(a,b) %g", d);
    CHECK(divergence_jaccard(&sets[1], &sets[2], &d, &err) == 0 && fabs(d - 2.0 / 3) < 1e-15, "d(b,c) %g", d);
    CHECK(divergence_code(sets, 3, &d, &err) == 0 && fabs(d - 26.0 / 45) < 1e-15, "CD %.17g, expected 26/45",
          d);
    CHECK(divergence_code(sets, 2, &d, &err) == 0 && fabs(d - 0.4) < 1e-15, "CD of two: their distance %g",
          d);
}

/* One variant everywhere: every platform compiles the same lines, CD = 0; disjoint sets give 1. */
static void test_limits(void)
{
    const struct divergence_set same[] = {SET("a", "b", "c"), SET("c", "b", "a"), SET("b", "a", "c", "a")};
    const struct divergence_set apart[] = {SET("a"), SET("b"), SET("c", "d")};
    const struct divergence_set empty[] = {{NULL, 0}, {NULL, 0}};
    struct pp_error err;
    double d = -1;

    CHECK(divergence_code(same, 3, &d, &err) == 0 && d == 0.0, "one variant everywhere: CD %g", d);
    CHECK(divergence_code(apart, 3, &d, &err) == 0 && d == 1.0, "disjoint: CD %g", d);
    CHECK(divergence_code(same, 1, &d, &err) == 0 && d == 0.0, "one platform: CD %g", d);
    CHECK(divergence_code(empty, 2, &d, &err) == 0 && d == 0.0, "empty sets: CD %g", d);
}

int main(void)
{
    RUN(test_hand_computed);
    RUN(test_limits);
    return check_failures ? 1 : 0;
}
