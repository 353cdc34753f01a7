/*
 * fielddump: the lattice suites' test-only dump of a run's fields and outputs (fielddump.h). Writes files
 * only; main thread.
 */
#include "kernels/fielddump.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

const char *fielddump_dir(void)
{
    const char *dir = getenv(FIELDDUMP_ENV);

    return dir && *dir ? dir : NULL;
}

static int write_reals(const char *path, const double *x, size_t n, struct pp_error *err)
{
    FILE *f = fopen(path, "wb");

    if (!f)
        return pp_error_set(err, "test dump: cannot create %s", path);
    if (fwrite(x, sizeof(double), n, f) != n) {
        fclose(f);
        return pp_error_set(err, "test dump: cannot write %s", path);
    }
    if (fclose(f))
        return pp_error_set(err, "test dump: cannot write %s", path);
    return 0;
}

int fielddump_write(const char *dir, const char *suite, const char *model, const unsigned dims[4],
                    enum pp_precision prec, uint64_t seed, const struct fielddump_array *arrays,
                    size_t narrays, struct pp_error *err)
{
    const size_t volume = (size_t)dims[0] * dims[1] * dims[2] * dims[3];
    const uint16_t probe = 1;
    json_t *doc, *table = json_object();
    char path[4096], file[256];
    int rc = -1;

    doc = json_pack("{s:s, s:s, s:[i,i,i,i], s:s, s:i, s:I, s:s, s:o}", "suite", suite, "model", model,
                    "lattice", (int)dims[0], (int)dims[1], (int)dims[2], (int)dims[3], "precision",
                    pp_precision_name(prec), "output_parity", 1, "seed", (json_int_t)seed, "byte_order",
                    *(const uint8_t *)&probe ? "little" : "big", "arrays", table);
    if (!doc)
        return pp_error_set(err, "test dump: out of memory");
    for (size_t i = 0; i < narrays; i++) {
        const struct fielddump_array *a = &arrays[i];
        json_t *shape = a->full
                            ? json_pack("[i,i,i,i]", (int)dims[3], (int)dims[2], (int)dims[1], (int)dims[0])
                            : json_pack("[I]", (json_int_t)(volume / 2));
        size_t n = a->full ? volume : volume / 2;

        for (unsigned k = 0; k < a->naxes; k++) {
            json_array_append_new(shape, json_integer(a->axes[k]));
            n *= a->axes[k];
        }
        snprintf(file, sizeof(file), "%s.%s.f64", suite, a->name);
        json_object_set_new(table, a->name, json_pack("{s:s, s:o}", "file", file, "shape", shape));
        snprintf(path, sizeof(path), "%s/%s", dir, file);
        if (write_reals(path, a->data, n, err))
            goto out;
    }
    snprintf(path, sizeof(path), "%s/%s.json", dir, suite);
    if (json_dump_file(doc, path, JSON_INDENT(2)) != 0) {
        pp_error_set(err, "test dump: cannot write %s", path);
        goto out;
    }
    rc = 0;
out:
    json_decref(doc);
    return rc;
}
