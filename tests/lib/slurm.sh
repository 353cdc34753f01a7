# A real Slurm cluster for the tests, from Debian's packages (munge, slurmctld, slurmd): munged with a fresh key,
# slurmctld and one slurmd per node name (n1..n3, all NodeHostname=localhost, each on its own port: the packaged
# slurmd is built with multiple-slurmd support), on loopback, in $TMP/slurm, with cgroup-free settings
# (proctrack/linuxproc, task/none, no accounting database), so it runs in a container without systemd.
# Stopped when the test file ends. Source after check.sh (and server.sh when the test needs a server).
#
# slurm_start: sets SLURM_OK=1 and exports SLURM_CONF when the cluster answers with its nodes idle; otherwise
# prints one SKIP line with the reason (SLURM_WHY) and leaves SLURM_OK empty: a test must then stop, never
# pass silently.
SLURM_DIR="$TMP/slurm"
SLURM_NODES=${SLURM_NODES:-"n1 n2 n3"}
SLURM_OK=""
SLURM_PIDS=""

slurm_why() {
    SLURM_WHY=$1
    skip "slurm cluster" "$1"
}

slurm_start() {
    local n port ctl_port i
    for b in munged mungekey slurmctld slurmd sbatch scontrol squeue scancel; do
        command -v "$b" >/dev/null 2>&1 || [ -x "/usr/sbin/$b" ] || {
            slurm_why "$b not installed (scripts/deps.sh installs slurm-wlm and munge)"
            return 1
        }
    done
    [ "$(id -u)" = 0 ] || {
        slurm_why "slurmd must run as root to start jobs as their user"
        return 1
    }
    mkdir -p "$SLURM_DIR"/{munge,ctld,log,spool}
    chmod 700 "$SLURM_DIR/munge"
    # munged refuses a key or socket directory that others can write; its key is made fresh here.
    /usr/sbin/mungekey -c -k "$SLURM_DIR/munge/munge.key" >/dev/null 2>&1 ||
        dd if=/dev/urandom of="$SLURM_DIR/munge/munge.key" bs=1024 count=1 2>/dev/null
    chmod 400 "$SLURM_DIR/munge/munge.key"
    /usr/sbin/munged --key-file="$SLURM_DIR/munge/munge.key" --socket="$SLURM_DIR/munge/munge.socket" \
        --pid-file="$SLURM_DIR/munge/munged.pid" --log-file="$SLURM_DIR/log/munged.log" \
        --seed-file="$SLURM_DIR/munge/seed" --force >/dev/null 2>&1 || {
        slurm_why "munged does not start: $(tail -n 2 "$SLURM_DIR/log/munged.log" 2>/dev/null | tr '\n' ' ')"
        return 1
    }
    ctl_port=$(free_port)
    port=$(free_port)
    {
        echo "ClusterName=ppbenchtest"
        echo "SlurmctldHost=localhost(127.0.0.1)"
        echo "SlurmctldPort=$ctl_port"
        echo "SlurmUser=root"
        echo "SlurmdUser=root"
        echo "AuthType=auth/munge"
        echo "AuthInfo=socket=$SLURM_DIR/munge/munge.socket"
        echo "CredType=cred/munge"
        echo "StateSaveLocation=$SLURM_DIR/ctld"
        echo "SlurmdSpoolDir=$SLURM_DIR/spool/%n"
        echo "SlurmctldPidFile=$SLURM_DIR/slurmctld.pid"
        echo "SlurmdPidFile=$SLURM_DIR/slurmd.%n.pid"
        echo "SlurmctldLogFile=$SLURM_DIR/log/slurmctld.log"
        echo "SlurmdLogFile=$SLURM_DIR/log/slurmd.%n.log"
        echo "ProctrackType=proctrack/linuxproc"
        echo "TaskPlugin=task/none"
        echo "JobAcctGatherType=jobacct_gather/none"
        echo "AccountingStorageType=accounting_storage/none"
        echo "JobCompType=jobcomp/none"
        echo "SchedulerType=sched/builtin"
        echo "SelectType=select/cons_tres"
        echo "SelectTypeParameters=CR_CPU"
        echo "ReturnToService=2"
        echo "MinJobAge=600"
        echo "SlurmdTimeout=30"
        # how long a command tries to reach an absent controller (default 10 s): the test of Slurm unreachable
        # waits for two such sbatch; loopback round trips take milliseconds
        echo "MessageTimeout=5"
        echo "InactiveLimit=0"
        echo "KillWait=2"
        echo "MpiDefault=none"
        echo "LaunchParameters=use_interactive_step"
        echo "GresTypes=gpu"
        i=0
        for n in $SLURM_NODES; do
            echo "NodeName=$n NodeHostname=localhost NodeAddr=127.0.0.1 Port=$((port + i)) CPUs=2 Gres=gpu:1 State=UNKNOWN"
            i=$((i + 1))
        done
        echo "PartitionName=ppb Nodes=$(echo "$SLURM_NODES" | tr ' ' ',') Default=YES MaxTime=INFINITE State=UP"
        # a second partition, of the last node, for a job that names its own
        echo "PartitionName=alt Nodes=$(echo "$SLURM_NODES" | awk '{print $NF}') MaxTime=INFINITE State=UP"
    } >"$SLURM_DIR/slurm.conf"
    # 22.05 has no CgroupPlugin=disabled: cgroup/v1 is loaded but unused (no cgroup proctrack, task or
    # constrain plugin), and IgnoreSystemd keeps it from asking systemd for a scope.
    printf "CgroupPlugin=cgroup/v1\nIgnoreSystemd=yes\n" >"$SLURM_DIR/cgroup.conf"
    # one pretend GPU per node (/dev/null as its device file): enough for sbatch --gres=gpu:1 to be checked
    echo "Name=gpu File=/dev/null" >"$SLURM_DIR/gres.conf"
    export SLURM_CONF="$SLURM_DIR/slurm.conf"
    /usr/sbin/slurmctld -i -f "$SLURM_CONF" >>"$SLURM_DIR/log/slurmctld.out" 2>&1 || {
        slurm_why "slurmctld does not start: $(tail -n 3 "$SLURM_DIR/log/slurmctld.log" 2>/dev/null | tr '\n' ' ')"
        return 1
    }
    for n in $SLURM_NODES; do
        /usr/sbin/slurmd -N "$n" -f "$SLURM_CONF" >>"$SLURM_DIR/log/slurmd.out" 2>&1 || {
            slurm_why "slurmd -N $n does not start: $(tail -n 3 "$SLURM_DIR/log/slurmd.$n.log" 2>/dev/null | tr '\n' ' ')"
            return 1
        }
    done
    wait_for 40 slurm_idle && { SLURM_OK=1; return 0; } # 20 s was short once, on a loaded 2-core run
    slurm_why "the nodes did not become idle: $(sinfo -h -N -o '%N %t %E' 2>&1 | tr '\n' ';') $(tail -n 3 "$SLURM_DIR/log/slurmctld.log" 2>/dev/null | tr '\n' ' ')"
    return 1
}

# slurm_idle: every node of the partition idle; slurm_gone PID: a daemon has exited
slurm_idle() { [ "$(sinfo -h -N -p ppb -o '%N %t' 2>/dev/null | awk '$2 == "idle"' | wc -l)" -eq "$(echo "$SLURM_NODES" | wc -w)" ]; }
slurm_gone() { ! kill -0 "$1" 2>/dev/null; }

slurm_stop() {
    [ -d "$SLURM_DIR" ] || return 0
    # only our own cluster's jobs: never a real cluster's, were SLURM_CONF not ours
    [ "${SLURM_CONF:-}" = "$SLURM_DIR/slurm.conf" ] && scancel --quiet -u root >/dev/null 2>&1
    # the Slurm daemons told at once (each takes about 2 s to stop), one deadline for them all; munged last
    slurm_kill "$SLURM_DIR"/slurmd.*.pid "$SLURM_DIR"/slurmctld.pid
    slurm_kill "$SLURM_DIR"/munge/munged.pid
}

# slurm_kill PIDFILE...: SIGTERM to each daemon named, SIGKILL to those still there after 5 s.
slurm_kill() {
    local f pid pids=()
    for f; do
        pid=$(cat "$f" 2>/dev/null) && kill -TERM "$pid" 2>/dev/null && pids+=("$pid")
    done
    [ ${#pids[@]} -gt 0 ] || return 0
    wait_for 5 slurm_all_gone "${pids[@]}" || kill -KILL "${pids[@]}" 2>/dev/null
}
slurm_all_gone() {
    local pid
    for pid; do slurm_gone "$pid" || return 1; done
}

# slurm_wait_state JOBID REGEX SECONDS: until squeue shows the Slurm job in a state matching REGEX.
slurm_in_state() { [[ "$(squeue -h -t all -j "$1" -o %T 2>/dev/null)" =~ ^($2)$ ]]; }
slurm_wait_state() { wait_for "$3" slurm_in_state "$1" "$2"; }

# slurm_ctld_stop, slurm_ctld_start: the controller goes away and comes back (its state kept).
slurm_ctld_stop() {
    local pid
    pid=$(cat "$SLURM_DIR/slurmctld.pid" 2>/dev/null) || return 0
    kill -TERM "$pid" 2>/dev/null
    wait_for 10 slurm_gone "$pid" || kill -KILL "$pid" 2>/dev/null
}
slurm_any_idle() { sinfo -h -o %t 2>/dev/null | grep -q idle; }
slurm_ctld_start() {
    /usr/sbin/slurmctld -f "$SLURM_CONF" >>"$SLURM_DIR/log/slurmctld.out" 2>&1 || return 1
    wait_for 20 slurm_any_idle
}
