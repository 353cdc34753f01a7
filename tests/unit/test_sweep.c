/*
 * test_sweep: a sweep's short forms (lib/sweep.c): powers of two, ranges with a step, lists of numbers and
 * words, and every malformed form refused with its reason before anything is built.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lib/sweep.h"

/* The expansion as compact JSON ("" on error, with err). */
static const char *expand(const char *spec, size_t max, struct pp_error *err)
{
    static char out[4096];
    json_t *v = sweep_expand(spec, max, err);
    char *s = v ? json_dumps(v, JSON_COMPACT) : NULL;

    snprintf(out, sizeof(out), "%s", s ? s : "");
    free(s);
    json_decref(v);
    return out;
}

static void test_forms(void)
{
    struct pp_error err = {""};

    CHECK(!strcmp(expand("2^10..2^12", 64, &err), "[1024,2048,4096]"), "powers: %s",
          expand("2^10..2^12", 64, &err));
    CHECK(!strcmp(expand("2^0..2^0", 64, &err), "[1]"), "one power");
    CHECK(!strcmp(expand("20..100:20", 64, &err), "[20,40,60,80,100]"), "step: %s",
          expand("20..100:20", 64, &err));
    CHECK(!strcmp(expand("20..99:20", 64, &err), "[20,40,60,80]"), "step short of b");
    CHECK(!strcmp(expand("3..5", 64, &err), "[3,4,5]"), "step 1");
    CHECK(!strcmp(expand("-2..1", 64, &err), "[-2,-1,0,1]"), "negative start");
    CHECK(!strcmp(expand("20,40,80", 64, &err), "[20,40,80]"), "list of numbers");
    CHECK(!strcmp(expand("aos,soa", 64, &err), "[\"aos\",\"soa\"]"), "list of words");
    CHECK(!strcmp(expand("8x8x8x8,16", 64, &err), "[\"8x8x8x8\",16]"), "mixed list");
    CHECK(!strcmp(expand("2^20,2^24,3", 64, &err), "[1048576,16777216,3]"), "a list of powers: %s",
          expand("2^20,2^24,3", 64, &err));
    CHECK(!strcmp(expand("2^63,2^x", 64, &err), "[\"2^63\",\"2^x\"]"), "not powers: words");
    CHECK(!strcmp(expand("9223372036854775800..9223372036854775807:5", 64, &err),
                  "[9223372036854775800,9223372036854775805]"),
          "a range at the end of long long does not overflow: %s",
          expand("9223372036854775800..9223372036854775807:5", 64, &err));
}

static void test_refused(void)
{
    static const char *const bad[] = {"10..5",
                                      "1..10:0",
                                      "a..b",
                                      "1..2:x",
                                      "2^3..2^2",
                                      "2^..2^4",
                                      "2^1..2^63",
                                      "1..",
                                      "..5",
                                      "1,,2",
                                      ",1",
                                      "1,",
                                      "1..65",
                                      "2^0..2^64",
                                      "1..1000000000000",
                                      "99999999999999999999..1"};
    struct pp_error err;

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err.msg[0] = '\0';
        CHECK(sweep_expand(bad[i], 64, &err) == NULL && err.msg[0], "\"%s\" refused", bad[i]);
        CHECK(strstr(err.msg, bad[i]) != NULL, "\"%s\": the reason names it: %s", bad[i], err.msg);
    }
    CHECK(!strcmp(expand("1..64", 64, &err), expand("1..64", 64, &err)) &&
              strlen(expand("1..64", 64, &err)) > 0,
          "64 values are the bound, not past it");
    err.msg[0] = '\0';
    CHECK(sweep_expand("1,2,3", 2, &err) == NULL && strstr(err.msg, "more than 2"), "a list past max: %s",
          err.msg);
}

/* The CLI's numbers (--arraysize 2^25, --param arraysize=2^25) take sweep_integer's forms. */
static void test_integer(void)
{
    static const char *const bad[] = {"", "2^", "2^63", "2^-1", "2^x", "3^2", "1e6", "99999999999999999999",
                                      "-"};
    long long v = 0;

    CHECK(!sweep_integer("2^25", 4, &v) && v == 33554432, "2^25 is %lld", v);
    CHECK(!sweep_integer("2^0", 3, &v) && v == 1, "2^0 is %lld", v);
    CHECK(!sweep_integer("2^62", 4, &v) && v == 1LL << 62, "2^62");
    CHECK(!sweep_integer("-7", 2, &v) && v == -7, "-7");
    CHECK(!sweep_integer("2^25x", 4, &v) && v == 33554432, "only len characters are read");
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        CHECK(sweep_integer(bad[i], strlen(bad[i]), &v) == -1, "\"%s\" names no number", bad[i]);
}

int main(void)
{
    RUN(test_forms);
    RUN(test_integer);
    RUN(test_refused);
    return check_failures != 0;
}
