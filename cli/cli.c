/*
 * cli: the context every command gets (server URL, token, output mode), global options, failure printing.
 * The struct cli is owned by main and lives for the whole run; main thread only.
 */
#include "cli.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/sweep.h"

#define DEFAULT_SERVER "http://127.0.0.1:8080"

static int set_server(struct cli *c, const char *url, struct pp_error *err)
{
    size_t len = strlen(url);

    while (len > 0 && url[len - 1] == '/')
        len--;
    if (len == 0)
        return pp_error_set(err, "empty server url");
    if (len >= sizeof(c->http.server))
        return pp_error_set(err, "server url too long");
    memcpy(c->http.server, url, len);
    c->http.server[len] = '\0';
    return 0;
}

static int set_token(struct cli *c, const char *token, struct pp_error *err)
{
    size_t len;

    while (*token == ' ' || *token == '\t')
        token++;
    len = strcspn(token, " \t\r\n");
    if (len >= sizeof(c->http.token))
        return pp_error_set(err, "token too long");
    memcpy(c->http.token, token, len);
    c->http.token[len] = '\0';
    return 0;
}

/* The token file (ppbench login): its first line the token, when the file exists and can be read (unless
 * use_token is false: $PPBENCH_TOKEN's comes first); its line "server URL", the server the token was checked
 * against, into saved ("" when none). */
static int read_token_file(struct cli *c, bool use_token, char *saved, size_t size, struct pp_error *err)
{
    const char *home = getenv("HOME");
    char path[1024], line[sizeof(c->http.server) + 16];
    FILE *f;
    int rc = 0;

    saved[0] = '\0';
    if (!home || !*home)
        return 0;
    snprintf(path, sizeof(path), "%s/.config/ppbench/token", home);
    f = fopen(path, "r");
    if (!f)
        return 0;
    if (fgets(line, sizeof(line), f) && use_token) {
        rc = set_token(c, line, err);
        c->token_from = "~/.config/ppbench/token (ppbench login)";
    }
    if (!rc && fgets(line, sizeof(line), f) && !strncmp(line, "server ", 7))
        snprintf(saved, size, "%.*s", (int)strcspn(line + 7, "\r\n"), line + 7);
    fclose(f);
    if (rc)
        return pp_error_prefix(err, "%s", path);
    return 0;
}

int cli_init(struct cli *c, struct pp_error *err)
{
    const char *server = getenv("PPBENCH_SERVER"), *token = getenv("PPBENCH_TOKEN");
    bool env_token = token && *token;
    char saved[sizeof(c->http.server)];

    memset(c, 0, sizeof(*c));
    if (read_token_file(c, !env_token, saved, sizeof(saved), err))
        return -1;
    if (server && *server ? set_server(c, server, err) : set_server(c, *saved ? saved : DEFAULT_SERVER, err))
        return pp_error_prefix(err,
                               server && *server ? "PPBENCH_SERVER" : "~/.config/ppbench/token's server");
    if (env_token) {
        c->token_from = "PPBENCH_TOKEN";
        return set_token(c, token, err) ? pp_error_prefix(err, "PPBENCH_TOKEN") : 0;
    }
    return 0;
}

int cli_getopt(struct cli *c, int argc, char **argv, const char *optstring, const struct option *longopts)
{
    struct pp_error err;
    int opt;

    opterr = 0;
    for (;;) {
        opt = getopt_long(argc, argv, optstring, longopts, NULL);
        if (opt == CLI_OPT_SERVER || opt == CLI_OPT_TOKEN) {
            if (opt == CLI_OPT_TOKEN)
                c->token_from = "--token";
            if ((opt == CLI_OPT_SERVER ? set_server(c, optarg, &err) : set_token(c, optarg, &err)) == 0)
                continue;
            cli_usage_error("%s", err.msg);
            return '?';
        }
        if (opt == CLI_OPT_JSON) {
            c->json = 1;
            continue;
        }
        if (opt == '?') {
            cli_usage_error("unknown option \"%s\"", argv[optind - 1]);
        } else if (opt == ':') {
            cli_usage_error("option \"%s\" needs a value", argv[optind - 1]);
            opt = '?';
        }
        return opt;
    }
}

int cli_usage_error(const char *fmt, ...)
{
    va_list ap;

    fputs("ppbench: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return CLI_USAGE;
}

int cli_fail(const struct cli *c, const struct http_reply *r, const struct pp_error *err)
{
    json_t *e = json_object_get(r->json, "error");
    const char *detail = json_string_value(json_object_get(e, "detail"));
    const char *request = json_string_value(json_object_get(e, "request_id"));

    fprintf(stderr, "ppbench: %s\n", err->msg);
    if (detail && *detail)
        fprintf(stderr, "ppbench: detail: %s\n", detail);
    if (r->status >= 500 && request && *request)
        fprintf(stderr, "ppbench: request id %s\n", request);
    if (r->status == 401 && !c->http.token[0])
        fprintf(stderr, "ppbench: no token given: use --token, PPBENCH_TOKEN or `ppbench login` "
                        "(~/.config/ppbench/token)\n");
    else if (r->status == 401 && c->token_from)
        fprintf(stderr, "ppbench: the token came from %s; `ppbench login TOKEN` checks and saves another\n",
                c->token_from);
    return r->status >= 400 && r->status < 500 ? CLI_USAGE : CLI_UNREACHABLE;
}

void cli_print_body(const struct http_reply *r)
{
    if (!r->body)
        return;
    fwrite(r->body, 1, r->len, stdout);
    if (r->len == 0 || r->body[r->len - 1] != '\n')
        fputc('\n', stdout);
}

int cli_parse_ll(const char *opt, const char *s, long long *out, struct pp_error *err)
{
    if (sweep_integer(s, strlen(s), out))
        return pp_error_set(err, "invalid %s \"%s\": expected a whole number or 2^k (0 <= k <= 62)", opt, s);
    return 0;
}
