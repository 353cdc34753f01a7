/*
 * api/slurm: a Slurm node's state, and an admin's drain and resume of it (slurm.c; the work is
 * server/slurm/node.c's).
 */
#ifndef PP_API_SLURM_H
#define PP_API_SLURM_H

#include "server/http/http.h"

int slurm_nodes_list(struct request *r);
int slurm_node_show(struct request *r);
int slurm_node_drain(struct request *r);
int slurm_node_resume(struct request *r);

#endif
