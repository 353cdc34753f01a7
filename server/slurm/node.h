/*
 * node: Slurm's nodes and partitions as its commands show them (node.c): a node's state, its drain and
 * resume (scontrol), a partition's nodes (sinfo -N), whether a partition and gres exist (sinfo -a), and the
 * `ppbenchd slurm` command. Any thread; each call waits for its command (seconds at most).
 */
#ifndef PP_SLURM_NODE_H
#define PP_SLURM_NODE_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "lib/error.h"
#include "server/config.h"

/* A node's state and reason as `scontrol show node` gives them. */
struct slurm_node {
    char name[128];
    char state[128];  /* "IDLE+DRAIN", "ALLOCATED", ... */
    char reason[512]; /* "" when none; Slurm appends " [user@time]" */
    bool drained;     /* the state has DRAIN (draining or drained) */
    bool ours;        /* the reason starts with "ppbench:" */
};

/* Whether name is a node name we pass to scontrol (letters, digits, '.', '_', '-'; 1..127). */
bool slurm_node_name_ok(const char *name);

int slurm_node_get(const char *node, struct slurm_node *out, struct pp_error *err) PP_WUR;

/* The nodes of a partition as sinfo -N gives them (new reference): [{"node", "state" ("idle", "allocated",
 * "drained", "down", ...), "reason" (null when none), "ppbench_drain"}]. What a fleet sweep of "every node
 * of partition P" expands to, one job per node; NULL with err when sinfo fails. */
json_t *slurm_nodes(const char *partition, struct pp_error *err);

/* Drain node with Reason="ppbench: <text>". Fills out with the node after the change. Returns 1, and leaves
 * the node alone, when it is drained already by someone else (their reason is never overwritten). */
int slurm_drain(const char *node, const char *text, struct slurm_node *out, struct pp_error *err) PP_WUR;

/* Resume node when it is drained with ppbench's own reason. Returns 0 (resumed, or not drained at all: out
 * says which), -1 with err on failure, and 1 when the drain is someone else's: it is left alone. */
int slurm_resume(const char *node, struct slurm_node *out, struct pp_error *err) PP_WUR;

/* A job's partition and gres (NULL: none asked) against Slurm's partitions (sinfo, kept 30 s): 0 known, or
 * Slurm could not be asked (the job is accepted, the executor retries it); 1 unknown, with the field
 * ("slurm.partition", "slurm.gres") and the message. Any thread. */
int slurm_target_check(const char *partition, const char *gres, const char **field, char *msg, size_t size);

/* `ppbenchd slurm show|resume NODE`, `ppbenchd slurm drain NODE REASON`: the drain hook command that fleet
 * health runs (same settings file). Prints the node on one line; exit 0 done, 1 resume refused (someone
 * else's drain), 2 bad arguments, 3 Slurm failed. */
int slurm_command(const struct config *c, int argc, char **argv);

#endif
