/*
 * conn: each open connection's whole-request deadline (slow senders) and libmicrohttpd's own log lines; the
 * design in conn.c's head comment.
 */
#ifndef PP_HTTP_CONN_H
#define PP_HTTP_CONN_H

#include <microhttpd.h>
#include <stdarg.h>

/* MHD_OPTION_NOTIFY_CONNECTION: a connection opens (its first request is awaited) or closes. */
void conn_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
                 enum MHD_ConnectionNotificationCode toe);
/* MHD_OPTION_EXTERNAL_LOGGER: MHD's lines, budgeted; a client that left is a debug line. */
void conn_mhd_log(void *cls, const char *fmt, va_list ap);

/* The connection's next request must arrive whole within the request timeout. */
void conn_expect_request(struct MHD_Connection *conn);
/* Its request arrived whole: no deadline until the next one. */
void conn_arrived(struct MHD_Connection *conn);

/* The sweeper thread, cutting connections whose request is late by request_timeout_s; -1 when it cannot
 * start. */
int conn_sweeper_start(double request_timeout_s);
void conn_sweeper_stop(void);

#endif
