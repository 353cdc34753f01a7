/*
 * info: fixed-size key/value list used for provenance. Pure, any thread.
 */
#include "info.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void info_add(struct pp_info_list *list, const char *key, const char *fmt, ...)
{
    struct pp_info *it;
    va_list ap;

    if (list->len >= PP_MAX_INFO)
        return;
    it = &list->items[list->len++];
    snprintf(it->key, sizeof(it->key), "%s", key);
    va_start(ap, fmt);
    vsnprintf(it->value, sizeof(it->value), fmt, ap);
    va_end(ap);
}

const char *info_get(const struct pp_info_list *list, const char *key)
{
    for (size_t i = 0; i < list->len; i++)
        if (strcmp(list->items[i].key, key) == 0)
            return list->items[i].value;
    return NULL;
}
