/*
 * alerts: the delivery thread (one per ppbenchd, with its own database connection). It claims one pending
 * alert at a time by pushing its next_at past the delivery's time (FOR UPDATE SKIP LOCKED), so several
 * ppbenchd on one database deliver each alert once; runs the drain hook for a raised event (once: hook_done),
 * POSTs the document to the webhook (libcurl, 5 s timeout) and marks it taken on a 2xx, else schedules the
 * next try with a backoff of 2^attempts seconds up to 5 minutes. Nothing here blocks a request. The drain
 * hook runs in a process group of its own (server/spawn.c, as Slurm's commands do), killed whole after
 * drain_hook_timeout_s.
 */
#include "server/fleet/alerts.h"

#include <curl/curl.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/log.h"
#include "server/db.h"
#include "server/spawn.h"

struct alerts {
    pthread_t thread;
    atomic_bool stop;
};

static pthread_mutex_t conf_lock = PTHREAD_MUTEX_INITIALIZER;
static char conf_url[1024], conf_hook[1024];
static long conf_hook_timeout_s = 30;

static const char claim_sql[] =
    "UPDATE alerts SET attempts = attempts + 1, next_at = now() + interval '60 seconds' "
    "WHERE id = (SELECT id FROM alerts WHERE pending AND next_at <= now() ORDER BY id LIMIT 1 "
    "FOR UPDATE SKIP LOCKED) RETURNING id, kind, platform_id, reason, doc::text, hook_done, attempts";

static const char done_sql[] =
    "UPDATE alerts SET pending = false, hook_done = true, delivered_at = CASE WHEN $2 THEN now() END, "
    "last_error = $3 WHERE id = $1";

static const char retry_sql[] = "UPDATE alerts SET hook_done = true, next_at = now() + make_interval(secs => "
                                "$2), last_error = $3 WHERE id = $1";

void alerts_configure(const char *url, const char *hook, long hook_timeout_s)
{
    pthread_mutex_lock(&conf_lock);
    snprintf(conf_url, sizeof(conf_url), "%s", url);
    snprintf(conf_hook, sizeof(conf_hook), "%s", hook);
    conf_hook_timeout_s = hook_timeout_s;
    pthread_mutex_unlock(&conf_lock);
}

/* Run the hook with the platform and the reason as arguments, PPBENCH_EVENT and PATH its whole environment
 * (built before the fork: the child of a threaded process calls only async-signal-safe functions), in a
 * process group of its own. Waits at most timeout_s (drain_hook_timeout_s), then kills the group: the hook
 * and whatever it started that is still in it. */
static void run_hook(const char *hook, const char *kind, const char *platform, const char *reason,
                     long timeout_s)
{
    char event[32];
    char *const argv[] = {(char *)hook, (char *)platform, (char *)reason, NULL};
    char *const envp[] = {event, "PATH=/usr/local/bin:/usr/bin:/bin", NULL};
    int status = 0;
    pid_t pid;

    snprintf(event, sizeof(event), "PPBENCH_EVENT=%s", kind);
    pid = fork();

    if (pid < 0) {
        log_err("alerts: drain hook: fork: %s", strerror(errno));
        return;
    }
    if (pid == 0) {
        spawn_own_group();
        spawn_child_reset(-1);
        execve(hook, argv, envp);
        _exit(127);
    }
    spawn_own_group_of(pid);
    for (long i = 0; i < timeout_s * 10; i++) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid) {
            if (!WIFEXITED(status) || WEXITSTATUS(status))
                log_warn("alerts: drain hook %s %s: exit %d", hook, platform,
                         WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
            else
                log_notice("alerts: drain hook %s ran for platform=%s", hook, platform);
            return;
        }
        poll(NULL, 0, 100);
    }
    spawn_kill_group(pid);
    waitpid(pid, &status, 0);
    log_warn("alerts: drain hook %s %s: killed after %ld s, with its process group", hook, platform,
             timeout_s);
}

static size_t discard(char *p, size_t size, size_t n, void *u)
{
    (void)p;
    (void)u;
    return size * n;
}

/* POST doc; 0 on a 2xx, else -1 with why in err. */
static int post(const char *url, const char *doc, char *err, size_t size)
{
    CURL *c = curl_easy_init();
    struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
    long code = 0;
    CURLcode rc;

    if (!c) {
        snprintf(err, size, "curl_easy_init failed");
        curl_slist_free_all(h);
        return -1;
    }
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, doc);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 5L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "ppbenchd");
    rc = curl_easy_perform(c);
    if (rc == CURLE_OK)
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    if (rc != CURLE_OK) {
        snprintf(err, size, "%s", curl_easy_strerror(rc));
        return -1;
    }
    if (code < 200 || code > 299) {
        snprintf(err, size, "HTTP %ld", code);
        return -1;
    }
    return 0;
}

/* Deliver one alert; false when none was pending. */
static bool deliver_one(void)
{
    char url[1024], hook[1024], why[256] = "", backoff[16];
    long hook_timeout_s;
    struct db_error err;
    PGresult *res, *done;
    bool ok;

    if (!(res = db_query(claim_sql, 0, NULL, &err)))
        return false;
    if (!PQntuples(res)) {
        PQclear(res);
        return false;
    }
    const char *id = PQgetvalue(res, 0, 0), *kind = PQgetvalue(res, 0, 1), *platform = PQgetvalue(res, 0, 2);
    int attempts = atoi(PQgetvalue(res, 0, 6));
    pthread_mutex_lock(&conf_lock);
    memcpy(url, conf_url, sizeof(url));
    memcpy(hook, conf_hook, sizeof(hook));
    hook_timeout_s = conf_hook_timeout_s;
    pthread_mutex_unlock(&conf_lock);
    if (hook[0] && !strcmp(kind, "raised") && strcmp(PQgetvalue(res, 0, 5), "t"))
        run_hook(hook, kind, platform, PQgetvalue(res, 0, 3), hook_timeout_s);
    if (!url[0]) {
        const char *p[3] = {id, "false", "no webhook_url configured"};
        if ((done = db_query(done_sql, 3, p, &err)))
            PQclear(done);
        PQclear(res);
        return true;
    }
    ok = post(url, PQgetvalue(res, 0, 4), why, sizeof(why)) == 0;
    if (ok) {
        const char *p[3] = {id, "true", NULL};
        done = db_query(done_sql, 3, p, &err);
        log_notice("alerts: alert=%s %s platform=%s delivered (attempt %d)", id, kind, platform, attempts);
    } else {
        snprintf(backoff, sizeof(backoff), "%d", attempts >= 8 ? 300 : 1 << attempts);
        const char *p[3] = {id, backoff, why};
        done = db_query(retry_sql, 3, p, &err);
        log_warn("alerts: alert=%s platform=%s webhook failed (attempt %d): %s; again in %s s", id, platform,
                 attempts, why, backoff);
    }
    PQclear(done);
    PQclear(res);
    return true;
}

static void *run(void *arg)
{
    struct alerts *a = arg;

    while (!a->stop) {
        if (!deliver_one())
            poll(NULL, 0, 500);
    }
    db_thread_close();
    return NULL;
}

int alerts_start(struct alerts **out, struct pp_error *err)
{
    struct alerts *a = calloc(1, sizeof(*a));

    if (!a)
        return pp_error_set(err, "out of memory");
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        free(a);
        return pp_error_set(err, "cannot initialise libcurl");
    }
    if (pthread_create(&a->thread, NULL, run, a)) {
        free(a);
        return pp_error_set(err, "cannot start the alerts thread");
    }
    *out = a;
    return 0;
}

void alerts_stop(struct alerts *a)
{
    if (!a)
        return;
    a->stop = true;
    pthread_join(a->thread, NULL);
    free(a);
    curl_global_cleanup();
}
