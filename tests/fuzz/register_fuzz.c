/*
 * libFuzzer target: the check of a worker's registration document (server/api/register_check.c) on arbitrary
 * bytes parsed as JSON. Whatever they hold, the check must not crash; a document it accepts must have a host
 * and a platform id of the allowed characters and lengths (no NUL inside, so that what is stored is what was
 * sent), a positive pid and a platform object with string id, kind and name; a refusal names the field and
 * says why, with an error code of status 422.
 *   clang -g -fsanitize=fuzzer,address,undefined -I. -D_GNU_SOURCE tests/fuzz/register_fuzz.c \
 *         server/api/register_check.c server/http/errors.c lib/error.c kernels/suite.c kernels/suites.c \
 *         kernels/lattice.c -ljansson -lpthread -o register_fuzz
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "server/api/register_check.h"

static int only(const char *s, size_t max, const char *chars)
{
    size_t n = strlen(s);

    return n >= 1 && n <= max && strspn(s, chars) == n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *doc = json_loadb((const char *)data, size, JSON_ALLOW_NUL, NULL);
    struct register_doc d;
    enum http_err code = ERR_INTERNAL;
    char field[64] = "";
    struct pp_error err = {{0}};

    if (!doc)
        return 0;
    if (register_check(doc, &d, &code, field, sizeof(field), &err) == 0) {
        const json_t *id = json_object_get(d.platform, "id");
        if (!only(d.host, REGISTER_HOST_MAX,
                  "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") ||
            strlen(d.host) != json_string_length(json_object_get(doc, "host")))
            abort();
        if (!only(d.local_id, REGISTER_PLATFORM_MAX,
                  "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:-") ||
            d.local_id[0] == '.' || strlen(d.local_id) != json_string_length(id))
            abort();
        if (d.pid < 1 || !d.version || !json_is_string(json_object_get(d.platform, "kind")) ||
            !json_is_string(json_object_get(d.platform, "name")))
            abort();
        if (d.host_info && !json_is_object(d.host_info))
            abort();
    } else if (!field[0] || !err.msg[0] || errors_status(code) != 422) {
        abort(); /* a refusal always names the field, says why and is a 422 */
    }
    json_decref(doc);
    return 0;
}
