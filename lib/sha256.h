/*
 * sha256: FIPS 180-4's SHA-256, for the checksum of a runner's program in a result's provenance
 * (worker/external.c), so that a figure names the very binary that produced it. Any thread; no state.
 */
#ifndef PP_SHA256_H
#define PP_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include "lib/error.h"

struct sha256 {
    uint32_t h[8];
    uint64_t len; /* bytes so far */
    unsigned char buf[64];
    size_t used;
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t n);
void sha256_hex(struct sha256 *s, char out[65]); /* finishes s */

/* The checksum of a file, as 64 hex digits. */
int sha256_file(const char *path, char out[65], struct pp_error *err) PP_WUR;

#endif
