/*
 * fields: a request's JSON body read field by field, for the handlers (fields.c). Each function checks one
 * thing (the fields an object may have, a field's presence, type and range) and, when it does not fit,
 * records the API's error naming the field (req_fail) and returns its status; 0 when it fits. So a handler
 * reads as a chain: `if ((st = fields_only(r, r->json, "", known)) || (st = fields_string(r, "name", 64,
 * &name))) return st;`.
 */
#ifndef PP_HTTP_FIELDS_H
#define PP_HTTP_FIELDS_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "server/http/http.h"

/* 422 wrong_type: "<field> must be <want>" ("an integer", "a string", "true or false", ...). */
int fields_bad_type(struct request *r, const char *field, const char *want);

/* 422 unknown_field for the first key of obj that known (NULL-terminated) lacks, named prefix + key
 * ("selector.host"); 0 when every key is known. */
int fields_only(struct request *r, json_t *obj, const char *prefix, const char *const *known);

/* The body's integer field key, in [min, max], into *out; *out keeps its value when the field is absent.
 * 422 wrong_type or out_of_range. */
int fields_int(struct request *r, const char *key, long long min, long long max, long long *out);

/* The body's string field key, required: 422 missing_field when absent, wrong_type when it is not a string
 * or (max > 0) not of 1 to max characters. *out is borrowed from the body. */
int fields_string(struct request *r, const char *key, size_t max, const char **out);

/* The body's non-negative integer field key as a decimal string into out ("" when absent and not required):
 * 422 missing_field or wrong_type otherwise. For ids and epochs handed to SQL as text. */
int fields_id(struct request *r, const char *key, bool required, char *out, size_t size);

#endif
