/*
 * import_fuzz: libFuzzer target for the BabelStream CSV parser (lib/babelstream.c), the parser of the
 * bodies of POST /api/v1/import/babelstream. Every input must either parse into rows whose figures are finite
 * and ordered, or fail with a "line N: " message; nothing may crash, leak or read out of bounds. Built and
 * run for a few seconds by tests/service/server_pp.sh when clang has libFuzzer:
 *   clang -fsanitize=fuzzer,address,undefined -I. -D_GNU_SOURCE tests/fuzz/import_fuzz.c \
 *       lib/babelstream.c lib/error.c -lm -o import_fuzz && ./import_fuzz tests/fuzz/corpus
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/babelstream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct babelstream_set set = {0};
    struct pp_error err;

    if (babelstream_parse((const char *)data, size, &set, &err) == 0) {
        if (set.n == 0)
            abort();
        for (size_t i = 0; i < set.n; i++) {
            const struct babelstream_row *r = &set.rows[i];
            if (!isfinite(r->bandwidth) || !(r->min_s > 0) || r->max_s < r->min_s || r->mean_s < r->min_s ||
                r->n_elements < 1 || (r->element_bytes != 4 && r->element_bytes != 8) || r->num_times < 2 ||
                !r->kernel || !r->format || r->line < 1)
                abort();
        }
    } else if (set.n != 0 || set.rows || strncmp(err.msg, "line ", 5) != 0) {
        abort();
    }
    babelstream_set_clear(&set);
    return 0;
}
