/*
 * api/slurm: a Slurm node's state, and an admin's drain and resume of it (server/slurm/node.c does the work
 * with scontrol). HTTP pool threads; each call runs scontrol once or twice and waits for it (seconds at
 * most). The fleet-health code calls slurm_drain/slurm_resume directly on a confirmed failure or a passing
 * run (server/slurm/fleet.c). A drain or resume that would touch a drain not ppbench's answers 409
 * not_our_drain. GET /api/v1/slurm/nodes lists a partition's nodes (sinfo, at the time of asking) with
 * Slurm's state and reason: a sweep of "every node of partition P" is then one job per node naming
 * <node>/<device>, which the executor pins to its node with --nodelist.
 */
#include "server/api/slurm.h"

#include <jansson.h>
#include <string.h>

#include "lib/log.h"
#include "server/api/api.h"
#include "server/http/fields.h"
#include "server/slurm/node.h"
#include "server/slurm/slurm.h"

static int node_reply(struct request *r, const struct slurm_node *n)
{
    r->reply = json_pack("{s:s, s:s, s:s?, s:b, s:b}", "node", n->name, "state", n->state, "reason",
                         n->reason[0] ? n->reason : NULL, "drained", n->drained, "ppbench_drain",
                         n->drained && n->ours);
    return 200;
}

static int check_node(struct request *r)
{
    if (!slurm_enabled())
        return req_fail(r, ERR_NOT_FOUND, NULL, "the slurm executor is not configured (slurm_partition)");
    if (!slurm_node_name_ok(r->args[0]))
        return req_fail(r, ERR_INVALID_PARAMETER, "node",
                        "a node name is 1 to 127 letters, digits, '.', '_' or '-'");
    return 0;
}

static int slurm_fail(struct request *r, const struct pp_error *err)
{
    log_warn("request=%s %s", r->id, err->msg);
    return req_fail(r, ERR_SLURM_FAILED, NULL, "%s", err->msg);
}

int slurm_nodes_list(struct request *r)
{
    const char *part = req_query(r, "partition");
    struct pp_error err;
    json_t *nodes;
    int st;

    if ((st = req_check_query(r, "partition")))
        return st;
    if (!slurm_enabled())
        return req_fail(r, ERR_NOT_FOUND, NULL, "the slurm executor is not configured (slurm_partition)");
    if (!part)
        part = slurm_config()->slurm_partition;
    if (!slurm_node_name_ok(part))
        return req_fail(r, ERR_INVALID_PARAMETER, "partition",
                        "a partition name is 1 to 127 letters, digits, '.', '_' or '-'");
    if (!(nodes = slurm_nodes(part, &err)))
        return slurm_fail(r, &err);
    r->reply = json_pack("{s:s, s:o}", "partition", part, "nodes", nodes);
    return 200;
}

int slurm_node_show(struct request *r)
{
    struct slurm_node n;
    struct pp_error err;
    int st;

    if ((st = check_node(r)))
        return st;
    if (slurm_node_get(r->args[0], &n, &err))
        return slurm_fail(r, &err);
    return node_reply(r, &n);
}

int slurm_node_drain(struct request *r)
{
    static const char *const fields[] = {"reason", NULL};
    json_t *reason = json_object_get(r->json, "reason");
    struct slurm_node n;
    struct pp_error err;
    int st;

    if ((st = check_node(r)))
        return st;
    if ((st = fields_only(r, r->json, "", fields)))
        return st;
    if (!reason)
        return req_fail(r, ERR_MISSING_FIELD, "reason", "reason is required");
    if (!json_is_string(reason) || json_string_length(reason) < 1 || json_string_length(reason) > 400 ||
        strpbrk(json_string_value(reason), "\n\r"))
        return req_fail(r, ERR_WRONG_TYPE, "reason", "reason must be one line of 1 to 400 characters");
    if ((st = slurm_drain(r->args[0], json_string_value(reason), &n, &err)) < 0)
        return slurm_fail(r, &err);
    if (st == 1)
        return req_fail(r, ERR_NOT_OUR_DRAIN, NULL, "node %s is drained by someone else (%s): left as it is",
                        n.name, n.reason);
    return node_reply(r, &n);
}

int slurm_node_resume(struct request *r)
{
    struct slurm_node n;
    struct pp_error err;
    int st;

    if ((st = check_node(r)))
        return st;
    if ((st = slurm_resume(r->args[0], &n, &err)) < 0)
        return slurm_fail(r, &err);
    if (st == 1)
        return req_fail(r, ERR_NOT_OUR_DRAIN, NULL, "node %s was drained by someone else (%s): left drained",
                        n.name, n.reason);
    return node_reply(r, &n);
}
