-- 017_slurm_nodes: the nodes of the Slurm executor's partition as sinfo last showed them (server/slurm_fleet.c
-- refreshes them every slurm_nodes_s), the platforms discovered from them before any run, their state in the
-- Health page and the schedules, a job's own partition and gres, and the drain or resume each health event
-- asks of a Slurm node (alerts.slurm_done).
CREATE TABLE slurm_nodes (
    name          text PRIMARY KEY,
    partition     text NOT NULL,
    state         text NOT NULL,              -- sinfo's long form: idle, allocated, mixed, drained, down*, ...
    reason        text,                       -- Slurm's reason (drains, down), NULL when none
    gres          text NOT NULL DEFAULT '',   -- "gpu:h100:4(S:0-1)", '' when none
    ppbench_drain boolean NOT NULL DEFAULT false,
    seen_at       timestamptz NOT NULL DEFAULT now()
);

-- The job's partition and gres when it names its own (NULL: the executor's slurm_partition, slurm_gres).
ALTER TABLE jobs ADD COLUMN slurm_partition text, ADD COLUMN slurm_gres text;

-- Health events already there when this migration runs are not acted on (no drain for an old event).
ALTER TABLE alerts ADD COLUMN slurm_done boolean NOT NULL DEFAULT true;
ALTER TABLE alerts ALTER COLUMN slurm_done SET DEFAULT false;
