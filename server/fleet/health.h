/*
 * health: the judging settings (written to judge_settings from the notifier thread when they change), and
 * the notifier's judging ticks: the queued results judged a batch at a time, the peer groups' pending
 * changes folded in.
 */
#ifndef PP_FLEET_HEALTH_H
#define PP_FLEET_HEALTH_H

#include <stdbool.h>

struct health_settings {
    long window_k, min_results;     /* the baseline window and the results it needs before judging */
    long z_limit, min_band_percent; /* |z| past this is a change; the band is at least this % of the median */
    long outlier_mads, outlier_peers; /* k MADs below the peers' median, with at least this many peers */
};

/* Any thread (main at start and on SIGHUP); the notifier writes them to the database on its next tick. */
void health_configure(const struct health_settings *s);

/* Notifier thread: write the settings when they changed since the last write that succeeded. */
void health_sync(void);

/* Notifier thread, once a second: fold the peer groups' pending changes into the groups (peer_groups_compact,
 * schema/functions/peers.sql). */
void health_compact(void);

/* Notifier thread, when results were queued and once a second: judge the oldest HEALTH_JUDGE_BATCH queued
 * results (judge_pending, schema/functions/judge.sql). Returns whether more wait. */
#define HEALTH_JUDGE_BATCH 2000
bool health_judge(void);

#endif
