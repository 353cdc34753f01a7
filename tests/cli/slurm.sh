#!/bin/bash
# Slurm (issue 17): a real cluster from Debian's packages (tests/cli/slurm_lib.sh: munged, slurmctld, three
# slurmd node names on loopback) and ppbenchd's Slurm executor against it. Skipped, saying why, where Slurm
# cannot start.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/server_lib.sh"
. "$(dirname "$0")/slurm_lib.sh"
trap 'slurm_stop; server_cleanup' EXIT

slurm_start || exit 0

# The harness itself: a batch job on a named node runs there.
out="$TMP/hello.out"
jid=$(sbatch --parsable -p ppb -w n2 -o "$out" --wrap 'echo "on $SLURMD_NODENAME"' 2>&1)
if slurm_wait_state "$jid" COMPLETED 20 && grep -q '^on n2$' "$out"; then
    pass "slurm harness: a batch job runs on node n2"
else
    fail "slurm harness: a batch job runs on node n2" "sbatch: $jid; $(squeue -h -t all -o '%i %T %r' | tr '\n' ';')"
fi
