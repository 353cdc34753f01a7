/*
 * login: `ppbench login [TOKEN]` saves an API token in ~/.config/ppbench/token (mode 0600), the file every
 * command reads when neither --token nor PPBENCH_TOKEN is given, after checking it against the server, so
 * that a wrong token is refused when it is saved and not at the first submission (issue 25). The check is two
 * requests the API answers from the headers before any body is read (docs/API.md): GET /api/v1/suites with
 * the token (401: unknown or revoked) and POST /api/v1/jobs with an empty body (403: the token may not
 * submit; any 4xx about the body: it may, and nothing is created). --offline saves it unchecked, for a server
 * that cannot be reached from here. The server it was checked against is saved beside it (a line "server
 * URL"): later commands talk to it unless --server or PPBENCH_SERVER says otherwise. Main thread.
 */
#include "login.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char login_usage[] =
    "usage: ppbench login [TOKEN] [--offline]\n"
    "  checks an API token against the server (--server, PPBENCH_SERVER) and saves it in\n"
    "  ~/.config/ppbench/token (mode 0600), which every command then uses when neither --token nor\n"
    "  PPBENCH_TOKEN is given, with the server, which every command then talks to when neither\n"
    "  --server nor PPBENCH_SERVER is given; TOKEN absent: its first line is read from standard input\n"
    "  (`ppbenchd token create --role submit` prints one). A token the server does not know is not saved.\n"
    "  --offline          save it without checking (the server cannot be reached from here)\n";

/* A token as ppbenchd makes them: "ppb_" and 40 hexadecimal digits (server/http/auth.c); t may go on. */
static int token_shape(const char *t)
{
    return strncmp(t, "ppb_", 4) == 0 && strspn(t + 4, "0123456789abcdef") >= 40;
}

/* Writes the token and the server it belongs to ("server URL", the default server of every later command) to
 * HOME/.config/ppbench/token through a temporary file (mode 0600); path gets its name. */
static int save(const char *token, const char *server, char *path, size_t size, struct pp_error *err)
{
    const char *home = getenv("HOME");
    char dir[1024], tmp[1100];
    int fd;
    FILE *f;

    if (!home || !*home)
        return pp_error_set(err, "HOME is not set: no place for ~/.config/ppbench/token");
    snprintf(dir, sizeof(dir), "%s/.config", home);
    if (mkdir(dir, 0700) && errno != EEXIST)
        return pp_error_set(err, "cannot create %s: %s", dir, strerror(errno));
    snprintf(dir, sizeof(dir), "%s/.config/ppbench", home);
    if (mkdir(dir, 0700) && errno != EEXIST)
        return pp_error_set(err, "cannot create %s: %s", dir, strerror(errno));
    snprintf(path, size, "%s/token", dir);
    snprintf(tmp, sizeof(tmp), "%s/.token.%ld", dir, (long)getpid());
    fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return pp_error_set(err, "cannot write %s: %s", tmp, strerror(errno));
    f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        unlink(tmp);
        return pp_error_set(err, "cannot write %s: %s", tmp, strerror(errno));
    }
    fprintf(f, "%s\nserver %s\n", token, server);
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        pp_error_set(err, "cannot write %s: %s", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

/* Whether the server knows the token, and whether it may submit. Returns the exit status (CLI_OK: known). */
static int check(const struct cli *c, int *may_submit)
{
    struct http_reply r = {0};
    struct pp_error err;
    json_t *empty = json_object();
    int status = CLI_OK;

    *may_submit = 0;
    if (http_request(&c->http, "GET", "/api/v1/suites", NULL, &r, &err)) {
        if (r.status == 0)
            fprintf(stderr,
                    "ppbench: token not saved: %s\n"
                    "ppbench: `ppbench login --offline` saves it unchecked\n",
                    err.msg);
        else
            fprintf(stderr, "ppbench: token not saved: %s refused it: %s\n", c->http.server, err.msg);
        status = r.status == 0 || r.status >= 500 ? CLI_UNREACHABLE : CLI_USAGE;
        goto out;
    }
    http_reply_clear(&r);
    /* An empty body is never a job: the answer says only what the token's role allows. */
    if (http_request(&c->http, "POST", "/api/v1/jobs", empty, &r, &err) == 0) {
        fprintf(stderr, "ppbench: the server took an empty job: not a ppbenchd this client knows\n");
        status = CLI_UNREACHABLE;
    } else {
        *may_submit = r.status >= 400 && r.status < 500 && r.status != 401 && r.status != 403;
    }
out:
    json_decref(empty);
    http_reply_clear(&r);
    return status;
}

int login_main(struct cli *c, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"offline", no_argument, NULL, 'o'},
        CLI_GLOBAL_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    char line[sizeof(c->http.token) + 2], path[1200];
    const char *token;
    struct pp_error err;
    int opt, offline = 0, may_submit = 0, status;
    size_t len;

    optind = 0;
    while ((opt = cli_getopt(c, argc, argv, ":h", longopts)) != -1) {
        if (opt == 'h') {
            fputs(login_usage, stdout);
            return CLI_OK;
        }
        if (opt != 'o')
            return CLI_USAGE;
        offline = 1;
    }
    if (argc - optind > 1)
        return cli_usage_error("unexpected argument \"%s\"", argv[optind + 1]);
    if (optind < argc) {
        token = argv[optind];
    } else {
        if (isatty(STDIN_FILENO))
            fprintf(stderr, "token: ");
        if (!fgets(line, sizeof(line), stdin))
            return cli_usage_error(
                "login needs a token: ppbench login TOKEN, or the token on standard input");
        line[strcspn(line, "\r\n")] = '\0';
        token = line;
    }
    token += strspn(token, " \t");
    len = strcspn(token, " \t");
    if (len == 0 || len >= sizeof(c->http.token) || token[len + strspn(token + len, " \t")])
        return cli_usage_error("token not saved: %s",
                               len ? "it is more than one word, or too long" : "it is empty");
    if (len != 44 || !token_shape(token))
        return cli_usage_error(
            "token not saved: \"%.8s...\" (%zu characters) is not a ppbench API token (ppb_ and 40 "
            "hexadecimal digits, as `ppbenchd token create` prints it)",
            token, len);
    snprintf(c->http.token, sizeof(c->http.token), "%.*s", (int)len, token);
    if (!offline && (status = check(c, &may_submit)) != CLI_OK)
        return status;
    if (save(c->http.token, c->http.server, path, sizeof(path), &err)) {
        fprintf(stderr, "ppbench: token not saved: %s\n", err.msg);
        return CLI_USAGE;
    }
    if (offline)
        printf("token saved in %s, not checked (--offline): the first request to a server checks it\n", path);
    else
        printf("token saved in %s: %s knows it, and it %s\n", path, c->http.server,
               may_submit ? "may submit jobs" : "may read but not submit jobs (role read)");
    return CLI_OK;
}
