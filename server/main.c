/*
 * ppbenchd: startup, the embedded default, the `token`, `migrate` and `routes` commands, and the main loop.
 * The main thread owns the configuration, the embedded PostgreSQL, the supervisor and the signals (signalfd:
 * SIGTERM/SIGINT stop, SIGHUP reloads, SIGCHLD reaps supervised workers); HTTP pool threads and the notifier
 * thread do the rest. Startup may die with a message; once ready, nothing a request, a worker or the database
 * does stops the server. The embedded PostgreSQL is watched from the main loop and started again when it
 * dies (a backoff from 1 s to 30 s; the API answers 503 with Retry-After meanwhile).
 *
 * server/ is a folder per subject (docs/ARCHITECTURE.md, "The rooms of server/"); this is the one file that
 * may include every folder.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/log.h"
#include "server/api/api.h"
#include "server/api/routes.h"
#include "server/config.h"
#include "server/counters.h"
#include "server/db.h"
#include "server/embed/pgembed.h"
#include "server/embed/statedir.h"
#include "server/embed/supervise.h"
#include "server/fleet/alerts.h"
#include "server/fleet/health.h"
#include "server/fleet/notify.h"
#include "server/http/auth.h"
#include "server/http/http.h"
#include "server/migrate.h"
#include "server/slurm/executor.h"
#include "server/slurm/node.h"
#include "server/slurm/slurm.h"
#include "server/spawn.h"

struct options {
    const char *config_file;
    const char *command; /* NULL (serve), "token", "migrate", "routes", "slurm" */
    char **args;         /* after the command */
    int nargs;
    const char *role, *name;
    struct config cfg;
};

static void usage(FILE *f)
{
    fprintf(
        f,
        "usage: ppbenchd [--config FILE] [--database URL] [--state-dir DIR] [--listen ADDR:PORT]\n"
        "       ppbenchd token create --role read|submit|worker|admin [--name NAME] [same options]\n"
        "       ppbenchd migrate [same options]   (bring the database to this build's schema, then exit)\n"
        "       ppbenchd routes\n"
        "       ppbenchd [--config FILE] slurm show|resume NODE | slurm drain NODE REASON\n"
        "                (a node's drain with Reason=\"ppbench: REASON\", resumed only when ppbench's own)\n"
        "With no database URL (--database or PPBENCH_DATABASE_URL), ppbenchd starts its own PostgreSQL in\n"
        "the state directory and one worker per local platform.\n");
}

static int parse(int argc, char **argv, struct options *o)
{
    static const struct option longopts[] = {
        {"config", required_argument, NULL, 'c'},
        {"database", required_argument, NULL, 'd'},
        {"state-dir", required_argument, NULL, 's'},
        {"listen", required_argument, NULL, 'l'},
        {"role", required_argument, NULL, 'r'},
        {"name", required_argument, NULL, 'n'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *database = NULL, *state = NULL, *listen = NULL;
    struct pp_error err;
    int c;

    memset(o, 0, sizeof(*o));
    config_defaults(&o->cfg);
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'c':
            o->config_file = optarg;
            break;
        case 'd':
            database = optarg;
            break;
        case 's':
            state = optarg;
            break;
        case 'l':
            listen = optarg;
            break;
        case 'r':
            o->role = optarg;
            break;
        case 'n':
            o->name = optarg;
            break;
        case 'h':
            usage(stdout);
            exit(0);
        default:
            usage(stderr);
            return -1;
        }
    }
    if (optind < argc) {
        o->command = argv[optind];
        if (!strcmp(o->command, "token") && !(optind + 1 < argc && !strcmp(argv[optind + 1], "create"))) {
            fprintf(stderr, "ppbenchd: token: the only subcommand is create\n");
            return -1;
        }
        o->args = argv + optind + 1;
        o->nargs = argc - optind - 1;
        if (strcmp(o->command, "token") && strcmp(o->command, "migrate") && strcmp(o->command, "routes") &&
            strcmp(o->command, "slurm")) {
            fprintf(stderr, "ppbenchd: unknown command \"%s\"\n", o->command);
            return -1;
        }
    }
    if (o->config_file && config_load_file(&o->cfg, o->config_file, &err)) {
        fprintf(stderr, "ppbenchd: %s\n", err.msg);
        return -1;
    }
    if ((state && config_set(&o->cfg, "state_dir", state, &err)) ||
        (listen && config_set(&o->cfg, "listen", listen, &err)) || slurm_check_config(&o->cfg, &err)) {
        fprintf(stderr, "ppbenchd: %s\n", err.msg);
        return -1;
    }
    if (!database)
        database = getenv("PPBENCH_DATABASE_URL");
    snprintf(o->cfg.database_url, sizeof(o->cfg.database_url), "%s", database ? database : "");
    return 0;
}

/* The embedded default keeps its admin and worker tokens in the state directory (mode 0600), so a restart
 * reuses them instead of piling up new ones. *created says whether this call made a new token (the only time
 * the admin token is printed); a file whose token the database no longer knows is replaced. */
static int local_token(PGconn *conn, const char *path, const char *role, char *out, size_t size,
                       bool *created, struct pp_error *err)
{
    FILE *f;
    int fd;

    *created = false;
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0 && (f = fdopen(fd, "r"))) {
        int ok = fgets(out, (int)size, f) != NULL;
        (void)fchmod(fd, 0600); /* a file an older ppbenchd or a person left readable to others */
        fclose(f);
        out[strcspn(out, "\n")] = '\0';
        PGresult *res;
        const char *params[1] = {out};
        res = PQexecParams(
            conn,
            "SELECT 1 FROM api_tokens WHERE hash = encode(sha256(convert_to($1, 'UTF8')), 'hex') "
            "AND revoked_at IS NULL",
            1, NULL, params, NULL, NULL, 0);
        ok = ok && PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1;
        PQclear(res);
        if (ok)
            return 0;
    } else if (fd >= 0) {
        close(fd);
    }
    if (auth_create(conn, role, "embedded default", out, size, err))
        return -1;
    if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) < 0 || fchmod(fd, 0600) ||
        dprintf(fd, "%s\n", out) < 0) {
        if (fd >= 0)
            close(fd);
        return pp_error_set(err, "%s: %s", path, strerror(errno));
    }
    close(fd);
    *created = true;
    return 0;
}

static int open_database(struct options *o, struct pgembed **pg, struct pp_error *err)
{
    char conninfo[1024];

    if (o->cfg.database_url[0]) {
        db_init(o->cfg.database_url);
        return 0;
    }
    if (mkdir(o->cfg.state_dir, 0755) && errno != EEXIST)
        return pp_error_set(err, "state directory %s: %s", o->cfg.state_dir, strerror(errno));
    /* A cluster caught half-started or half-dead by a kill (an empty PID file, a stale lock) clears within
     * seconds: try again with a backoff for about 15 s before giving up (bench/chaos.sh saw ppbenchd exit on
     * 2 of 45 restarts without this). */
    for (unsigned attempt = 0, wait_s = 1;; attempt++, wait_s *= 2) {
        if (pgembed_start(o->cfg.state_dir, pg, conninfo, sizeof(conninfo), err) == 0)
            break;
        if (attempt == 4)
            return pp_error_prefix(err, "embedded postgresql");
        log_warn("embedded postgresql: %s; trying again in %u s", err->msg, wait_s);
        sleep(wait_s);
    }
    db_init(conninfo);
    return 0;
}

static int migrate(struct pp_error *err)
{
    struct db_error dberr;
    PGconn *c = db_connect(&dberr);
    int applied, rc;

    if (!c)
        return pp_error_set(err, "database: %s", dberr.e.msg);
    rc = migrate_apply(c, &applied, err);
    PQfinish(c);
    return rc;
}

/* `token create` and `migrate`: the database opened (the embedded cluster borrowed from a running server, or
 * started and stopped again) and brought to this build's schema; then a new token for token. */
static int cmd_database(struct options *o)
{
    struct pgembed *pg = NULL;
    struct pp_error err;
    struct db_error dberr;
    char token[64];
    PGconn *c = NULL;
    bool keep_running;
    int rc = 1;

    if (!strcmp(o->command, "token") && !o->role) {
        fprintf(stderr, "ppbenchd: token create needs --role read|submit|worker|admin\n");
        return 2;
    }
    /* A running server's cluster is only borrowed: it must go on running after this command. */
    keep_running = !o->cfg.database_url[0] && pgembed_running(o->cfg.state_dir);
    if (open_database(o, &pg, &err) || migrate(&err)) {
        fprintf(stderr, "ppbenchd: %s\n", err.msg);
        goto out;
    }
    if (!strcmp(o->command, "migrate")) {
        printf("schema: %d migrations and this build's functions\n", migrate_count());
        rc = 0;
        goto out;
    }
    if (!(c = db_connect(&dberr))) {
        fprintf(stderr, "ppbenchd: %s\n", dberr.e.msg);
        goto out;
    }
    if (auth_create(c, o->role, o->name, token, sizeof(token), &err)) {
        fprintf(stderr, "ppbenchd: %s\n", err.msg);
        goto out;
    }
    printf("%s\n", token);
    rc = 0;
out:
    PQfinish(c);
    if (keep_running)
        pgembed_release(pg);
    else
        pgembed_stop(pg);
    return rc;
}

static int signals_fd(void)
{
    sigset_t set;

    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    sigaddset(&set, SIGCHLD);
    pthread_sigmask(SIG_BLOCK, &set, NULL); /* before any thread starts: they all inherit the mask */
    signal(SIGPIPE, SIG_IGN);
    return signalfd(-1, &set, SFD_CLOEXEC);
}

static void apply_settings(const struct config *c)
{
    enum log_level lvl = LOG_INFO;
    struct api_settings s = {c->lease_s,
                             c->heartbeat_s,
                             c->max_wait_s,
                             c->noise_best_percent,
                             c->noise_mean_percent,
                             c->noise_repeats,
                             "",
                             false};

    log_parse_level(c->log_level, &lvl);
    log_set_level(lvl);
    struct health_settings h = {c->baseline_window,        c->baseline_min_results, c->judge_z,
                                c->judge_min_band_percent, c->outlier_mads,         c->outlier_min_peers};

    s.exclusive_on = config_exclusive_json(c, s.exclusive, sizeof(s.exclusive));
    http_set_limits((size_t)c->max_body_bytes, c->require_read_token);
    api_configure(&s);
    notify_configure(c->lease_s, c->queue_timeout_s);
    db_configure(c->db_timeout_s);
    health_configure(&h);
    alerts_configure(c->webhook_url, c->drain_hook, c->drain_hook_timeout_s);
    counters_configure(c->metrics_max_series);
}

static void reload(struct options *o)
{
    struct config next;
    struct pp_error err;

    if (!o->config_file) {
        log_notice("reload: no configuration file to read");
        return;
    }
    config_defaults(&next);
    if (config_load_file(&next, o->config_file, &err)) {
        log_err("reload refused, keeping the running configuration: %s", err.msg);
        return;
    }
    config_apply_reloadable(&o->cfg, &next);
    apply_settings(&o->cfg);
    log_notice("reload: configuration %s applied", o->config_file);
}

/* The embedded PostgreSQL died (OOM killer, crash, kill): start it again, with a backoff from 1 s to 30 s
 * between failed tries. Meanwhile the API answers 503 with Retry-After (server/db.c); the per-thread
 * connections reconnect on their next use. */
static void supervise_postgres(struct pgembed *pg, double *retry_at, double *backoff)
{
    struct pp_error err;

    log_warn("embedded postgresql is not running: starting it again");
    if (pgembed_restart(pg, &err) == 0) {
        log_notice("embedded postgresql is back");
        *backoff = 1;
        *retry_at = 0;
        http_wake_all(); /* suspended long polls and streams retry now */
        return;
    }
    log_err("embedded postgresql: %s; trying again in %.0f s", err.msg, *backoff);
    *retry_at = clock_now() + *backoff;
    *backoff = *backoff * 2 > 30 ? 30 : *backoff * 2;
}

int main(int argc, char **argv)
{
    struct options o;
    struct pp_error err;
    struct pgembed *pg = NULL;
    struct notifier *notifier = NULL;
    struct db_watch *watch = NULL;
    struct slurm *slurm = NULL;
    struct alerts *alerts = NULL;
    struct http_server *http = NULL;
    struct supervisor *sup = NULL;
    char addr[64], url[128], admin[64], worker_token[64], worker_bin[1024];
    unsigned port;
    uint64_t watchdog_usec = 0;
    double pg_retry_at = 0, pg_backoff = 1;
    int sfd, lock_fd = -1, rc = 1;

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (parse(argc, argv, &o))
        return 2;
    if (o.command && !strcmp(o.command, "routes")) {
        for (const struct route *r = api_routes; r->method; r++)
            printf("%s %s\n", r->method, r->pattern);
        return 0;
    }
    if (o.command && !strcmp(o.command, "slurm"))
        return slurm_command(&o.cfg, o.nargs, o.args);
    if (o.command)
        return cmd_database(&o);
    if (config_listen(&o.cfg, addr, sizeof(addr), &port, &err)) {
        fprintf(stderr, "ppbenchd: %s\n", err.msg);
        return 2;
    }
    apply_settings(&o.cfg);
    /* The OOM killer should take a benchmark (a worker's job child) long before ppbenchd or the embedded
     * PostgreSQL, which inherits this score; supervised workers go back to 0 (server/embed/supervise.c). */
    spawn_oom_score("-500");
    if ((sfd = signals_fd()) < 0) {
        log_err("signalfd: %s", strerror(errno));
        return 1;
    }
    /* Before anything in the state directory is touched: a second ppbenchd on it leaves the first alone. */
    if (!o.cfg.database_url[0] && statedir_lock(o.cfg.state_dir, &lock_fd, &err)) {
        log_err("startup: %s", err.msg);
        return 1;
    }
    if (open_database(&o, &pg, &err) || migrate(&err)) {
        log_err("startup: %s", err.msg);
        goto out;
    }
    if (db_watch_start(&watch, &err) || notify_start(&notifier, &err) || alerts_start(&alerts, &err) ||
        http_start(addr, port, (unsigned)o.cfg.threads, (unsigned)o.cfg.max_connections,
                   (unsigned)o.cfg.connection_timeout_s, (unsigned)o.cfg.request_timeout_s,
                   (unsigned)o.cfg.max_connections_per_ip, api_routes, &http, &err)) {
        log_err("startup: %s", err.msg);
        goto out;
    }
    snprintf(url, sizeof(url), "http://%s:%u", addr, port);
    if (slurm_start(&o.cfg, url, &slurm, &err)) {
        log_err("startup: %s", err.msg);
        goto out;
    }
    if (pg) {
        struct db_error dberr;
        PGconn *c = db_connect(&dberr);
        char admin_path[640], worker_path[640];
        bool admin_new, worker_new;

        snprintf(admin_path, sizeof(admin_path), "%s/admin.token", o.cfg.state_dir);
        snprintf(worker_path, sizeof(worker_path), "%s/worker.token", o.cfg.state_dir);
        if (!c || local_token(c, admin_path, "admin", admin, sizeof(admin), &admin_new, &err) ||
            local_token(c, worker_path, "worker", worker_token, sizeof(worker_token), &worker_new, &err)) {
            log_err("startup: tokens: %s", c ? err.msg : dberr.e.msg);
            PQfinish(c);
            goto out;
        }
        PQfinish(c);
        /* The admin token is printed once, when it is made; later starts say where it is kept. */
        if (admin_new)
            printf("ppbench is ready: %s/\ntoken: %s\nadmin token kept in %s (mode 0600), printed only this "
                   "once\n",
                   url, admin, admin_path);
        else
            printf("ppbench is ready: %s/\nadmin token: in %s\n", url, admin_path);
        if (o.cfg.embedded_workers) {
            if (supervise_default_worker_bin(worker_bin, sizeof(worker_bin), &err) ||
                supervise_start(worker_bin, url, worker_token, o.cfg.job_grace_s, &sup, &err)) {
                log_err("startup: workers: %s", err.msg);
                goto out;
            }
        }
    } else {
        printf("ppbench is ready: %s/\n", url);
    }
    log_notice("ppbenchd listening on %s (%s database)", url, pg ? "embedded" : "external");
    sd_notifyf(0, "READY=1\nSTATUS=serving %s\nMAINPID=%d", url, (int)getpid());
    if (sd_watchdog_enabled(0, &watchdog_usec) <= 0)
        watchdog_usec = 0;

    for (;;) {
        struct pollfd pfd = {.fd = sfd, .events = POLLIN};
        int timeout = watchdog_usec ? (int)(watchdog_usec / 2000) : 1000;
        struct signalfd_siginfo si;

        if (poll(&pfd, 1, timeout > 1000 ? 1000 : timeout) > 0 && read(sfd, &si, sizeof(si)) == sizeof(si)) {
            if (si.ssi_signo == SIGTERM || si.ssi_signo == SIGINT) {
                log_notice("signal %d: stopping", (int)si.ssi_signo);
                break;
            }
            if (si.ssi_signo == SIGHUP) {
                sd_notify(0, "RELOADING=1");
                reload(&o);
                sd_notify(0, "READY=1");
            }
        }
        supervise_reap(sup);
        if (pg && clock_now() >= pg_retry_at && !pgembed_alive(pg))
            supervise_postgres(pg, &pg_retry_at, &pg_backoff);
        if (watchdog_usec)
            sd_notify(0, "WATCHDOG=1");
    }
    sd_notify(0, "STOPPING=1");
    rc = 0;
out:
    supervise_stop(sup); /* workers finish or release their jobs while the API still answers */
    slurm_stop(slurm);
    db_stop(); /* what still runs is cancelled, not awaited: an export could hold a thread for its deadline */
    http_stop(http);
    notify_stop(notifier);
    alerts_stop(alerts);
    db_watch_stop(watch);
    db_thread_close();
    pgembed_stop(pg);
    if (lock_fd >= 0)
        close(lock_fd);
    return rc;
}
