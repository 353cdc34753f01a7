/*
 * node: Slurm's nodes and partitions as its commands show them, for the admin routes (api/slurm.c), the
 * `ppbenchd slurm` command, fleet health (fleet.c) and the check of a job at submission (api/jobs.c). Runs on
 * whichever thread asks, and waits for scontrol or sinfo (seconds).
 *  - A node's state, drain and resume (scontrol). A resume happens only when the node's drain reason is
 *    ppbench's own ("ppbench: ..."): a drain an operator or NHC set is never lifted. Between the check and
 * the resume someone could drain the node again; Slurm offers no compare-and-set on the reason, and the
 * window is one scontrol call.
 *    A drain is not set over someone else's either (their reason stays): both answer 1, which the admin
 *    routes turn into 409 not_our_drain and `ppbenchd --config FILE slurm drain NODE REASON | resume NODE |
 *    show NODE` into exit status 1 (2: usage, 3: Slurm failed); each prints the node's state and reason on
 *    one line.
 *  - A partition's nodes (sinfo -N), what the executor stores in slurm_nodes and the API lists.
 *  - A job's partition and gres at submission (HTTP pool threads; its own slurm object, or the executor's
 *    settings), against sinfo -a -o %R|%G's answer kept for SLURM_CHECK_TTL_S (30 s; one sinfo call per TTL,
 *    under a mutex, whichever thread asks first): an unknown one is 422 at once instead of an sbatch refusal
 *    later; a Slurm that cannot be reached accepts the job.
 */
#include "server/slurm/node.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "lib/clock.h"
#include "lib/log.h"
#include "server/slurm/slurm.h"

#define SLURM_CHECK_TTL_S 30

bool slurm_node_name_ok(const char *name)
{
    size_t n = strlen(name);

    return n >= 1 && n < 128 && name[0] != '-' &&
           strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") == n;
}

int slurm_node_get(const char *node, struct slurm_node *out, struct pp_error *err)
{
    const char *argv[] = {slurm_config()->slurm_scontrol, "-o", "show", "node", node, NULL};
    char buf[8192];
    const char *st, *re;
    int rc;

    memset(out, 0, sizeof(*out));
    snprintf(out->name, sizeof(out->name), "%s", node);
    if ((rc = slurm_exec(argv, buf, sizeof(buf), SLURM_CMD_TIMEOUT_S, err)) != 0)
        return rc < 0 ? -1 : pp_error_set(err, "scontrol show node %s: %s", node, slurm_last_line(buf));
    if (!(st = strstr(buf, " State=")))
        return pp_error_set(err, "scontrol show node %s: no State in its answer", node);
    snprintf(out->state, sizeof(out->state), "%.*s", (int)strcspn(st + 7, " \n"), st + 7);
    /* Reason is the last field of the one-line form and may hold spaces */
    if ((re = strstr(buf, " Reason=")))
        snprintf(out->reason, sizeof(out->reason), "%.*s", (int)strcspn(re + 8, "\n"), re + 8);
    out->drained = strstr(out->state, "DRAIN") != NULL;
    out->ours = !strncmp(out->reason, "ppbench:", 8);
    return 0;
}

static int node_update(const char *node, const char *state, const char *reason, struct pp_error *err)
{
    char nn[160], ss[48], rr[600], buf[2048];
    const char *argv[6] = {slurm_config()->slurm_scontrol, "update", nn, ss, reason ? rr : NULL, NULL};
    int rc;

    snprintf(nn, sizeof(nn), "NodeName=%s", node);
    snprintf(ss, sizeof(ss), "State=%s", state);
    snprintf(rr, sizeof(rr), "Reason=%s", reason ? reason : "");
    if ((rc = slurm_exec(argv, buf, sizeof(buf), SLURM_CMD_TIMEOUT_S, err)) != 0)
        return rc < 0 ? -1 : pp_error_set(err, "scontrol update %s %s: %s", nn, ss, slurm_last_line(buf));
    return 0;
}

int slurm_drain(const char *node, const char *text, struct slurm_node *out, struct pp_error *err)
{
    char reason[520];

    if (slurm_node_get(node, out, err))
        return -1;
    if (out->drained && !out->ours) {
        log_notice("slurm: node %s left as it is: already drained by someone else (%s)", node, out->reason);
        return 1;
    }
    snprintf(reason, sizeof(reason), "ppbench: %s", text);
    if (node_update(node, "DRAIN", reason, err))
        return -1;
    log_notice("slurm: node %s drained: %s", node, reason);
    return slurm_node_get(node, out, err);
}

int slurm_resume(const char *node, struct slurm_node *out, struct pp_error *err)
{
    if (slurm_node_get(node, out, err))
        return -1;
    if (!out->drained)
        return 0;
    if (!out->ours) {
        log_notice("slurm: node %s left drained: the drain is not ppbench's (%s)", node, out->reason);
        return 1;
    }
    if (node_update(node, "RESUME", NULL, err))
        return -1;
    log_notice("slurm: node %s resumed (was: %s)", node, out->reason);
    return slurm_node_get(node, out, err);
}

int slurm_command(const struct config *c, int argc, char **argv)
{
    struct slurm_node n;
    struct pp_error err;
    int rc = -1;

    if (argc < 2 || !slurm_node_name_ok(argv[1]) || (!strcmp(argv[0], "drain") ? argc != 3 : argc != 2) ||
        (strcmp(argv[0], "show") && strcmp(argv[0], "drain") && strcmp(argv[0], "resume"))) {
        fprintf(stderr, "ppbenchd: usage: slurm show|resume NODE, or slurm drain NODE REASON\n");
        return 2;
    }
    if (slurm_configure(c, "", &err)) {
        fprintf(stderr, "ppbenchd: %s\n", err.msg);
        return 2;
    }
    if (!strcmp(argv[0], "show"))
        rc = slurm_node_get(argv[1], &n, &err);
    else if ((rc = !strcmp(argv[0], "drain") ? slurm_drain(argv[1], argv[2], &n, &err)
                                             : slurm_resume(argv[1], &n, &err)) == 1) {
        printf("%s %s left drained: not ppbench's drain (%s)\n", n.name, n.state, n.reason);
        return 1;
    }
    if (rc) {
        fprintf(stderr, "ppbenchd: %s\n", err.msg);
        return 3;
    }
    printf("%s %s%s%s\n", n.name, n.state, n.reason[0] ? " " : "", n.reason);
    return 0;
}

json_t *slurm_nodes(const char *partition, struct pp_error *err)
{
    char part[160], out[65536];
    const char *argv[] = {"sinfo", "-h", "-N", part, "-o", "%N|%T|%G|%E", NULL};
    json_t *nodes;
    int rc;

    argv[0] = slurm_config()->slurm_sinfo;
    snprintf(part, sizeof(part), "--partition=%s", partition);
    if ((rc = slurm_exec(argv, out, sizeof(out), SLURM_CMD_TIMEOUT_S, err)) != 0)
        return rc < 0
                   ? NULL
                   : (pp_error_set(err, "sinfo --partition=%s: %s", partition, slurm_last_line(out)), NULL);
    if (!(nodes = json_array()))
        return pp_error_set(err, "out of memory"), NULL;
    for (char *l = out, *next; l && *l; l = next) {
        char *b1, *b2, *b3;
        next = strchr(l, '\n');
        if (next)
            *next++ = '\0';
        /* the reason last: it may hold a '|' */
        if (!(b1 = strchr(l, '|')) || !(b2 = strchr(b1 + 1, '|')) || !(b3 = strchr(b2 + 1, '|')))
            continue;
        *b1 = *b2 = *b3 = '\0';
        /* sinfo -N lists a node once per partition it is in: this partition only, so once */
        json_array_append_new(nodes, json_pack("{s:s, s:s, s:s, s:s?, s:b}", "node", l, "state", b1 + 1,
                                               "gres", strcmp(b2 + 1, "(null)") ? b2 + 1 : "", "reason",
                                               strcmp(b3 + 1, "none") && b3[1] ? b3 + 1 : NULL,
                                               "ppbench_drain", !strncmp(b3 + 1, "ppbench:", 8)));
    }
    return nodes;
}

/* ---- a job's partition and gres at submission ---- */

static pthread_mutex_t check_lock = PTHREAD_MUTEX_INITIALIZER;
static char check_out[65536]; /* "partition|gres" lines of sinfo -a; under check_lock */
static double check_at = -1e9;

/* Whether one of a partition's gres lists ("gpu:h100:4(S:0-1),nic:1") offers the request's name and type
 * ("gpu:1", "gpu:h100:2", "gpu"). */
static bool gres_offers(const char *list, const char *want)
{
    char name[64], type[64] = "";
    size_t n = strcspn(want, ":");
    const char *rest = want + n;

    snprintf(name, sizeof(name), "%.*s", (int)n, want);
    if (*rest == ':' && rest[1] && !strchr("0123456789", rest[1]))
        snprintf(type, sizeof(type), "%.*s", (int)strcspn(rest + 1, ":"), rest + 1);
    for (const char *g = list; g && *g; g = strchr(g, ',') ? strchr(g, ',') + 1 : NULL) {
        size_t gn = strcspn(g, ":,(");
        if (gn != strlen(name) || strncmp(g, name, gn))
            continue;
        if (!type[0])
            return true;
        if (g[gn] == ':' && !strncmp(g + gn + 1, type, strlen(type)) &&
            strchr(":,(", g[gn + 1 + strlen(type)] ? g[gn + 1 + strlen(type)] : ','))
            return true;
    }
    return false;
}

int slurm_target_check(const char *partition, const char *gres, const char **field, char *msg, size_t size)
{
    const char *argv[] = {slurm_config()->slurm_sinfo, "-h", "-a", "-o", "%R|%G", NULL};
    struct pp_error err;
    bool part_found = false, gres_found = !gres;
    int rc = 0;

    pthread_mutex_lock(&check_lock);
    if (clock_now() - check_at > SLURM_CHECK_TTL_S) {
        if ((rc = slurm_exec(argv, check_out, sizeof(check_out), SLURM_CMD_TIMEOUT_S, &err)) != 0) {
            log_warn("slurm: sinfo for the check of a job's partition: %s; the job is accepted",
                     rc < 0 ? err.msg : slurm_last_line(check_out));
            pthread_mutex_unlock(&check_lock);
            return 0; /* Slurm away: the executor retries the submission, as it does */
        }
        check_at = clock_now();
    }
    for (const char *l = check_out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        size_t pn = strcspn(l, "|\n");
        if (pn != strlen(partition) || strncmp(l, partition, pn) || l[pn] != '|')
            continue;
        part_found = true;
        char list[1024];
        snprintf(list, sizeof(list), "%.*s", (int)strcspn(l + pn + 1, "\n"), l + pn + 1);
        gres_found = gres_found || gres_offers(list, gres);
    }
    pthread_mutex_unlock(&check_lock);
    if (!part_found) {
        *field = "slurm.partition";
        snprintf(msg, size, "slurm has no partition \"%s\"", partition);
        return 1;
    }
    if (!gres_found) {
        *field = "slurm.gres";
        snprintf(msg, size, "no node of slurm partition %s has gres \"%s\"", partition, gres);
        return 1;
    }
    return 0;
}
