/*
 * api: what every REST handler stands on (docs/API.md): the handlers' settings, and the replies they share.
 * Handlers run on HTTP pool threads, use that thread's database connection, and return a status
 * (server/http/http.h). The route table that binds them is routes.c, the one file of server/api/ that
 * includes the handlers' headers; a handler includes this file, never routes.h.
 */
#ifndef PP_API_H
#define PP_API_H

#include "server/db.h"
#include "server/http/http.h"

/* Settings the handlers read (reloadable through SIGHUP). */
struct api_settings {
    long lease_s, heartbeat_s, max_wait_s;
    /* the noise rule (docs/METHODOLOGY.md, "Noise"): a result whose figure is less stable than this (percent:
     * best_tenth for best-of rules, mean_ci95 for mean-of rules) is repeated up to noise_repeats times, then
     * flagged noisy */
    long noise_best_percent, noise_mean_percent, noise_repeats;
    /* the exclusive_<kind> settings as a JSON object of kind to host|device|none (config_exclusive_json);
     * exclusive_on: some kind is not none, so a claim locks its host first */
    char exclusive[128];
    bool exclusive_on;
};
void api_configure(const struct api_settings *s);
const struct api_settings *api_settings(void);

/* One place that turns a database failure into a reply: 503 when unreachable, else 500 (logged). */
int api_db_fail(struct request *r, const struct db_error *err);

/* A statement whose first value is the reply: 200 with it as the body (type NULL: JSON); 404 with missing as
 * the message when the statement returns no row (NULL: one that always returns one). */
int api_reply_value(struct request *r, const char *sql, int n, const char *const *params, const char *type,
                    const char *missing);

#endif
