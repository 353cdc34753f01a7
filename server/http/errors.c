/*
 * errors: the table of API error codes and their HTTP statuses (errors.h). Pure data, any thread.
 */
#include "server/http/errors.h"

#include <string.h>

static const struct {
    const char *code;
    int status;
} table[] = {
#define HTTP_ERROR_ROW(name, code, status) [ERR_##name] = {code, status},
    HTTP_ERRORS(HTTP_ERROR_ROW)
#undef HTTP_ERROR_ROW
};

const char *errors_code(enum http_err e)
{
    return (unsigned)e < ERR_COUNT ? table[e].code : "internal";
}

int errors_status(enum http_err e)
{
    return (unsigned)e < ERR_COUNT ? table[e].status : 500;
}

enum http_err errors_from_code(const char *code)
{
    for (unsigned i = 0; i < ERR_COUNT; i++)
        if (!strcmp(table[i].code, code))
            return (enum http_err)i;
    return ERR_INTERNAL;
}
