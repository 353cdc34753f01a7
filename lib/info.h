/*
 * info: a small fixed list of key/value strings. Backends describe their runtime, driver and compiler with it
 * (provenance), without depending on a JSON library. Header is C and C++ (the CUDA backend includes it).
 */
#ifndef PP_INFO_H
#define PP_INFO_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PP_MAX_INFO 32

struct pp_info {
    char key[48];
    char value[208];
};

struct pp_info_list {
    struct pp_info items[PP_MAX_INFO];
    size_t len;
};

/* Append key = formatted value; silently drops entries past PP_MAX_INFO (provenance is best effort). */
void info_add(struct pp_info_list *list, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The value for key, or NULL (borrowed). */
const char *info_get(const struct pp_info_list *list, const char *key);

#ifdef __cplusplus
}
#endif

#endif
