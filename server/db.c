/*
 * db: per-thread connections and lazily prepared statements. Any thread; each thread touches only its own
 * connection (a PGconn belongs to one thread). The conninfo is written once by db_init before threads start.
 *
 * Deadlines (issue 26): a PostgreSQL that is paused (SIGSTOP, a hung host, a dead network path) answers
 * nothing and closes nothing, and blocking libpq calls would wait for ever, each holding an HTTP thread (and
 * every connection of that thread, /healthz's too). So every connection is made and every statement run
 * without blocking (PQconnectStart, PQsend*, poll on PQsocket) until a deadline: db_timeout_s, which is also
 * each connection's statement_timeout, plus DB_MARGIN_S for a live server to say so itself (57014, answered
 * 503). And a watch thread (db_watch_start) asks "SELECT 1" once a second on a connection of its own: when
 * that gets no answer within DB_PROBE_S the database is stuck, every call waiting on it gives up (within
 * 100 ms) and every new one fails at once as unavailable, until the watch is answered again.
 *
 * Failures are classified (unavailable: 503 with Retry-After; else 500). A connection that broke is closed at
 * once; a read that broke on a connection it reused (it may have died idle) is run once more on a new one.
 * db_query_after runs a lock and then a statement in one transaction, so that the statement's snapshot is
 * taken after the lock (the claim's host lock, server/api/worker.c).
 *
 * Nobody waits for an answer no one will read (issue 26): a P3 export ran on in PostgreSQL 22 minutes after
 * its client left, and SIGTERM waited minutes for such statements. So while a statement of an HTTP request
 * waits, the wait also watches the request's client socket (db_request_begin, set by server/http/http.c):
 * when the client hangs up, or when the server stops (db_stop, set by main.c before the HTTP daemon stops),
 * the call gives up at once and closes its connection. Closing is the cancel: every connection runs with
 * client_connection_check_interval (PostgreSQL 14 and later), so its backend finds the connection gone
 * within CHECK_MS and abandons the statement, without a blocking PQcancel that a stuck postmaster would
 * never answer. The statement deadline of a request is its route's (struct route's timeout_s), never
 * shorter than db_timeout_s.
 */
#include "server/db.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/clock.h"
#include "lib/log.h"
#include "server/counters.h"

#define MAX_STATEMENTS 128
#define DB_MARGIN_S    2.0 /* past statement_timeout: a live server has said "canceled" by then */
#define DB_PROBE_S     2.0 /* the watch's and the readiness probe's deadline */
#define CHECK_MS       250 /* client_connection_check_interval: how soon a backend sees us gone */

struct thread_conn {
    PGconn *conn;
    const char *prepared[MAX_STATEMENTS]; /* SQL text pointers prepared on conn; index = statement name */
    int nprepared;
    long timeout_s; /* the statement_timeout set on conn */
};

/* The HTTP request this thread serves (db_request_begin): its client's socket, -1 for none. */
struct client {
    int fd;
    long timeout_s; /* its route's statement deadline, 0: db_timeout_s */
    bool left;      /* it hung up while a statement waited: every later call fails at once */
};

static char *conninfo;
static atomic_long timeout_s = 10; /* db_configure */
static atomic_bool stuck;          /* the watch got no answer within DB_PROBE_S */
static atomic_bool stopping;       /* db_stop: the server stops, nothing waits any more */
static _Thread_local struct client client = {.fd = -1};
static _Thread_local bool watching; /* this thread is the watch: it alone asks a stuck database */
static pthread_key_t conn_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

static void thread_conn_free(void *p)
{
    struct thread_conn *tc = p;

    if (tc) {
        PQfinish(tc->conn);
        free(tc);
    }
}

static void make_key(void)
{
    pthread_key_create(&conn_key, thread_conn_free);
}

void db_init(const char *info)
{
    free(conninfo);
    conninfo = strdup(info);
    pthread_once(&key_once, make_key);
}

void db_configure(long statement_timeout_s)
{
    atomic_store(&timeout_s, statement_timeout_s);
}

void db_stop(void)
{
    atomic_store(&stopping, true);
}

void db_request_begin(int client_fd, long route_timeout_s)
{
    client = (struct client){.fd = client_fd, .timeout_s = route_timeout_s};
}

void db_request_end(void)
{
    client = (struct client){.fd = -1};
}

bool db_client_left(void)
{
    return client.left;
}

/* The statement deadline of this thread's calls: its request's route's, never below db_timeout_s. */
static long statement_s(void)
{
    long global = atomic_load(&timeout_s);

    return client.timeout_s > global ? client.timeout_s : global;
}

static void set_error(struct db_error *err, PGconn *conn, const PGresult *res, const char *what)
{
    const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    const char *msg = res ? PQresultErrorMessage(res) : (conn ? PQerrorMessage(conn) : "no connection");

    counters_db_error();
    memset(err, 0, sizeof(*err));
    snprintf(err->sqlstate, sizeof(err->sqlstate), "%s", state ? state : "");
    /* Class 08 (connection exception), 57P (operator intervention: shutdown, crash recovery), 53 (resources).
     */
    /* A result without a SQLSTATE is libpq's own: the connection broke under the statement. */
    /* 57014: cancelled at statement_timeout, an overloaded server's answer too */
    err->unavailable = !conn || PQstatus(conn) != CONNECTION_OK || !strncmp(err->sqlstate, "08", 2) ||
                       !strncmp(err->sqlstate, "57P", 3) || !strcmp(err->sqlstate, "57014") ||
                       !strncmp(err->sqlstate, "53", 2) ||
                       (res && !state && PQresultStatus(res) == PGRES_FATAL_ERROR);
    pp_error_set(&err->e, "%s: %.*s", what, (int)strcspn(msg, "\n"), msg);
}

/* Server NOTICEs (e.g. "already exists, skipping") go to the debug log, not raw to stderr. */
static void on_notice(void *arg, const char *message)
{
    (void)arg;
    log_debug("postgresql: %.*s", (int)strcspn(message, "\n"), message);
}

/* No answer by the deadline, or the watch found the database stuck meanwhile. */
static void timed_out(struct db_error *err, const char *what, double seconds)
{
    counters_db_error();
    memset(err, 0, sizeof(*err));
    err->unavailable = err->timed_out = true;
    if (!watching && atomic_load(&stuck))
        pp_error_set(&err->e, "%s: the database does not answer", what);
    else
        pp_error_set(&err->e, "%s: no answer from the database within %.0f s", what, seconds);
}

/* The call gives up for a reason other than its deadline: the client left, the server stops. */
static bool abandoned(struct db_error *err)
{
    if (!client.left && !atomic_load(&stopping))
        return false;
    memset(err, 0, sizeof(*err));
    err->unavailable = err->abandoned = true;
    pp_error_set(&err->e, "%s", client.left ? "the client left" : "the server is stopping");
    return true;
}

/* Wait until c's socket is ready for events, at most until deadline (and, but for the watch, no longer than
 * the database is not stuck, the request's client is there and the server does not stop): 0, or -1 with err
 * filled. */
static int wait_socket(PGconn *c, short events, double deadline, double seconds, struct db_error *err)
{
    /* POLLRDHUP: the client closed its end (curl killed, a browser tab closed); an HTTP client sends nothing
     * more in the middle of its request but its next one, which is POLLIN, not a hang-up. */
    struct pollfd p[2] = {{.fd = PQsocket(c), .events = events}, {.fd = client.fd, .events = POLLRDHUP}};

    if (p[0].fd < 0) {
        set_error(err, c, NULL, "socket");
        return -1;
    }
    for (;;) {
        double left = deadline - clock_now();
        int n;

        if (left <= 0 || (!watching && atomic_load(&stuck))) {
            timed_out(err, "wait", seconds);
            return -1;
        }
        if (abandoned(err)) {
            if (!client.left) /* counted once, when seen */
                counters_db_cancelled(COUNTERS_CANCEL_STOPPING);
            return -1;
        }
        if ((n = poll(p, client.fd >= 0 ? 2 : 1, left < 0.1 ? (int)(left * 1000) + 1 : 100)) > 0) {
            if (p[1].revents & (POLLRDHUP | POLLHUP | POLLERR)) {
                client.left = true;
                counters_db_cancelled(COUNTERS_CANCEL_CLIENT_LEFT);
                p[1].revents = 0;
                continue;
            }
            if (p[0].revents)
                return 0;
        }
        if (n < 0 && errno != EINTR) {
            set_error(err, c, NULL, "poll");
            return -1;
        }
    }
}

/* A connection of its own, made by deadline without blocking past it (seconds: the deadline's length, for
 * the message), or NULL with err filled. */
static PGconn *connect_by(double deadline, double seconds, struct db_error *err)
{
    PGconn *c = PQconnectStart(conninfo ? conninfo : "");
    PostgresPollingStatusType st = PGRES_POLLING_WRITING;

    if (!c) {
        pp_error_set(&err->e, "connect: out of memory");
        return NULL;
    }
    while (PQstatus(c) != CONNECTION_BAD && st != PGRES_POLLING_OK && st != PGRES_POLLING_FAILED) {
        if (wait_socket(c, st == PGRES_POLLING_READING ? POLLIN : POLLOUT, deadline, seconds, err)) {
            if (err->timed_out)
                pp_error_set(&err->e, "connect: no answer from the database within %.0f s", seconds);
            PQfinish(c);
            return NULL;
        }
        st = PQconnectPoll(c);
    }
    if (PQstatus(c) != CONNECTION_OK) {
        set_error(err, NULL, NULL, "connect");
        pp_error_set(&err->e, "connect: %.*s", (int)strcspn(PQerrorMessage(c), "\n"), PQerrorMessage(c));
        PQfinish(c);
        return NULL;
    }
    PQsetNoticeProcessor(c, on_notice, NULL);
    return c;
}

PGconn *db_connect(struct db_error *err)
{
    double seconds = (double)atomic_load(&timeout_s) + DB_MARGIN_S;

    memset(err, 0, sizeof(*err));
    return connect_by(clock_now() + seconds, seconds, err);
}

/* The one result of the statement just sent on c (PQsend*), awaited by deadline without blocking past it;
 * NULL with err filled when none came (the connection is then in an unknown state: the caller closes it). */
static PGresult *await_result(PGconn *c, double deadline, double seconds, struct db_error *err)
{
    PGresult *res = NULL, *next;
    int f;

    while ((f = PQflush(c)) == 1)
        if (wait_socket(c, POLLIN | POLLOUT, deadline, seconds, err) || !PQconsumeInput(c))
            goto fail;
    if (f < 0)
        goto fail;
    for (;;) {
        while (PQisBusy(c))
            if (wait_socket(c, POLLIN, deadline, seconds, err) || !PQconsumeInput(c))
                goto fail;
        if (!(next = PQgetResult(c)))
            return res;
        if (res && PQresultStatus(res) == PGRES_FATAL_ERROR)
            PQclear(next); /* the error stays the answer */
        else {
            PQclear(res);
            res = next;
        }
    }
fail:
    PQclear(res);
    if (!err->e.msg[0])
        set_error(err, c, NULL, "query");
    return NULL;
}

static PGresult *exec_sent(struct thread_conn *tc, int sent, double deadline, double seconds,
                           struct db_error *err);

/* This thread's connection, made by deadline when it has none, with db_timeout_s as its statement_timeout. */
static struct thread_conn *thread_conn(double deadline, double seconds, struct db_error *err, bool *fresh)
{
    struct thread_conn *tc = pthread_getspecific(conn_key);
    long want = statement_s();
    char set[96];

    if (!tc) {
        tc = calloc(1, sizeof(*tc));
        if (!tc) {
            pp_error_set(&err->e, "out of memory");
            return NULL;
        }
        pthread_setspecific(conn_key, tc);
    }
    if (tc->conn && PQstatus(tc->conn) != CONNECTION_OK) {
        PQfinish(tc->conn);
        tc->conn = NULL;
    }
    if (!tc->conn) {
        *fresh = true;
        tc->nprepared = 0;
        tc->timeout_s = 0;
        if (!(tc->conn = connect_by(deadline, seconds, err)))
            return NULL;
        PQsetnonblocking(tc->conn, 1);
    }
    if (tc->timeout_s != want) { /* a new connection, another route's deadline, or db_timeout_s reloaded */
        PGresult *res;
        /* both in one round trip: the deadline, and how soon the backend sees this connection closed */
        snprintf(set, sizeof(set), "SET statement_timeout = %ld; SET client_connection_check_interval = %d",
                 want * 1000, CHECK_MS);
        if (!(res = exec_sent(tc, PQsendQuery(tc->conn, set), deadline, seconds, err)))
            return NULL;
        PQclear(res);
        tc->timeout_s = want;
    }
    return tc;
}

/* A statement that only reads: safe to run again when the connection broke under it. Every statement is a
 * constant in the code next to its use, so the test is on text we wrote: a SELECT that names no writing
 * verb. */
static bool read_only(const char *sql)
{
    return !strncmp(sql, "SELECT", 6) && !strstr(sql, "INSERT") && !strstr(sql, "UPDATE") &&
           !strstr(sql, "DELETE");
}

static PGresult *query_once(const char *sql, int nparams, const char *const *params, double seconds,
                            bool *fresh, struct db_error *err);

/* While the database is stuck, a call fails at once (but the watch's), and so does one for a client that
 * left or while the server stops. 0, or -1 with err filled. */
static int gate(struct db_error *err)
{
    memset(err, 0, sizeof(*err));
    if (abandoned(err))
        return -1;
    if (watching || !atomic_load(&stuck))
        return 0;
    err->unavailable = err->timed_out = true;
    pp_error_set(&err->e, "the database does not answer (no answer to SELECT 1 within %.0f s)", DB_PROBE_S);
    return -1;
}

static PGresult *query(const char *sql, int nparams, const char *const *params, double seconds,
                       struct db_error *err)
{
    bool fresh = false;
    PGresult *res;

    if (gate(err))
        return NULL;
    res = query_once(sql, nparams, params, seconds, &fresh, err);
    if (!res && err->unavailable) {
        db_thread_close();
        if (!fresh && !err->timed_out && !err->abandoned && read_only(sql)) {
            log_debug("database connection lost: %s; retrying the read on a new connection", err->e.msg);
            res = query_once(sql, nparams, params, seconds, &fresh, err);
            if (!res && err->unavailable)
                db_thread_close();
        }
    }
    return res;
}

/* After a failure that means the connection is gone (PostgreSQL restarted, killed, unreachable, or no answer
 * by the deadline), close it so the next statement on this thread connects afresh instead of finding out on
 * its next use. A read that failed so on a connection it reused (it may have died idle) is run once more on
 * a new one, unless it got no answer. */
PGresult *db_query(const char *sql, int nparams, const char *const *params, struct db_error *err)
{
    return query(sql, nparams, params, (double)statement_s() + DB_MARGIN_S, err);
}

PGresult *db_query_probe(const char *sql, int nparams, const char *const *params, struct db_error *err)
{
    return query(sql, nparams, params, DB_PROBE_S, err);
}

/* The result of what was just sent on tc's connection (sent: PQsend*'s answer), by deadline; NULL with err
 * filled when the statement failed or no answer came. */
static PGresult *exec_sent(struct thread_conn *tc, int sent, double deadline, double seconds,
                           struct db_error *err)
{
    PGresult *res;
    ExecStatusType st;

    if (!sent) {
        set_error(err, tc->conn, NULL, "send");
        return NULL;
    }
    if (!(res = await_result(tc->conn, deadline, seconds, err)))
        return NULL;
    st = PQresultStatus(res);
    if (st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK) {
        set_error(err, tc->conn, res, "query");
        PQclear(res);
        return NULL;
    }
    return res;
}

/* Run sql on tc's connection, preparing it there the first time, by deadline. */
static PGresult *exec_on(struct thread_conn *tc, const char *sql, int nparams, const char *const *params,
                         double deadline, double seconds, struct db_error *err)
{
    char name[16];
    int idx = -1;
    PGresult *res;

    for (int i = 0; i < tc->nprepared; i++)
        if (tc->prepared[i] == sql)
            idx = i;
    if (idx < 0) {
        if (tc->nprepared >= MAX_STATEMENTS) {
            pp_error_set(&err->e, "too many distinct statements");
            return NULL;
        }
        idx = tc->nprepared;
        snprintf(name, sizeof(name), "s%d", idx);
        if (!(res = exec_sent(tc, PQsendPrepare(tc->conn, name, sql, nparams, NULL), deadline, seconds, err)))
            return NULL;
        PQclear(res);
        tc->prepared[tc->nprepared++] = sql;
    }
    snprintf(name, sizeof(name), "s%d", idx);
    return exec_sent(tc, PQsendQueryPrepared(tc->conn, name, nparams, params, NULL, NULL, 0), deadline,
                     seconds, err);
}

static PGresult *query_once(const char *sql, int nparams, const char *const *params, double seconds,
                            bool *fresh, struct db_error *err)
{
    double deadline = clock_now() + seconds;
    struct thread_conn *tc;

    memset(err, 0, sizeof(*err));
    tc = thread_conn(deadline, seconds, err, fresh);

    return tc ? exec_on(tc, sql, nparams, params, deadline, seconds, err) : NULL;
}

/* A transaction statement on tc's connection, by deadline; 0 or -1 with err filled. */
static int exec_plain(struct thread_conn *tc, const char *sql, double deadline, double seconds,
                      struct db_error *err)
{
    PGresult *res = exec_sent(tc, PQsendQuery(tc->conn, sql), deadline, seconds, err);

    PQclear(res);
    return res ? 0 : -1;
}

PGresult *db_query_after(const char *first_sql, int nfirst, const char *const *first_params, const char *sql,
                         int nparams, const char *const *params, struct db_error *err)
{
    bool fresh = false;
    double seconds = (double)statement_s() + DB_MARGIN_S, deadline = clock_now() + seconds;
    struct thread_conn *tc = NULL;
    PGresult *res = NULL, *first;

    if (gate(err))
        return NULL;
    if (!(tc = thread_conn(deadline, seconds, err, &fresh)))
        goto fail;
    if (exec_plain(tc, "BEGIN", deadline, seconds, err))
        goto fail;
    if (!(first = exec_on(tc, first_sql, nfirst, first_params, deadline, seconds, err)))
        goto fail;
    PQclear(first);
    if (!(res = exec_on(tc, sql, nparams, params, deadline, seconds, err)) ||
        exec_plain(tc, "COMMIT", deadline, seconds, err))
        goto fail;
    return res;
fail:
    PQclear(res);
    if (tc && !err->unavailable && PQstatus(tc->conn) == CONNECTION_OK &&
        PQtransactionStatus(tc->conn) != PQTRANS_IDLE) {
        struct db_error rollback; /* err keeps why */
        exec_plain(tc, "ROLLBACK", clock_now() + DB_PROBE_S, DB_PROBE_S, &rollback);
    }
    if (!tc || err->unavailable || PQstatus(tc->conn) != CONNECTION_OK ||
        PQtransactionStatus(tc->conn) != PQTRANS_IDLE)
        db_thread_close();
    return NULL;
}

void db_thread_close(void)
{
    struct thread_conn *tc = pthread_getspecific(conn_key);

    thread_conn_free(tc);
    pthread_setspecific(conn_key, NULL);
}

struct db_watch {
    pthread_t thread;
    atomic_bool stop;
};

/* The watch: SELECT 1 once a second within DB_PROBE_S on this thread's connection; the database is stuck
 * while that gets no answer (a refused connection is not stuck: it fails fast on its own). */
static void *watch(void *arg)
{
    struct db_watch *w = arg;

    watching = true;
    while (!atomic_load(&w->stop)) {
        struct db_error err;
        PGresult *res = query("SELECT 1", 0, NULL, DB_PROBE_S, &err);
        bool silent = !res && err.timed_out;

        PQclear(res);
        if (silent && !atomic_load(&stuck))
            log_warn("database: %s; every call fails at once until it answers", err.e.msg);
        else if (!silent && atomic_load(&stuck))
            log_notice("database: answering again");
        atomic_store(&stuck, silent);
        for (int i = 0; i < 10 && !atomic_load(&w->stop); i++)
            poll(NULL, 0, 100);
    }
    db_thread_close();
    return NULL;
}

int db_watch_start(struct db_watch **out, struct pp_error *err)
{
    struct db_watch *w = calloc(1, sizeof(*w));

    if (!w)
        return pp_error_set(err, "out of memory");
    if (pthread_create(&w->thread, NULL, watch, w)) {
        free(w);
        return pp_error_set(err, "cannot start the database watch thread");
    }
    *out = w;
    return 0;
}

void db_watch_stop(struct db_watch *w)
{
    if (!w)
        return;
    atomic_store(&w->stop, true);
    pthread_join(w->thread, NULL);
    free(w);
}
