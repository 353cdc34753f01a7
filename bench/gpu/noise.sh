#!/usr/bin/env bash
# The samples behind the noise rule (issue 22): every suite standalone with its default sizes, each run REPS
# times, on the GPU (cuda, opencl) and on its host's CPU (openmp, and openmp with OMP_PROC_BIND=close and
# OMP_PLACES=cores), each alone; then the GPU's stream and wilson again while the host's CPU runs stream
# (the disturbance the one-measurement-per-host rule keeps out). Every run's --json report goes to OUT; read
# them with bench/noise_stats.py OUT/*.json (CV, max/min, the best tenth's spread, the mean's 95 % interval).
# The reports are also packed into OUT/noise.tar.gz (the device tool brings back a limited count of files), and
# runs stop starting once BUDGET_S seconds have passed (default 480).
#   OUT=<folder> bench/gpu/noise.sh        (carry build/bin, build/lib; without a GPU only the CPU part runs)
# Settings: REPS (default 2), SUITES (default every suite), MODELS_GPU (default "cuda opencl"), RUN_TIMEOUT (s).
set -u
cd "$(dirname "$0")/../.." || exit 1
B=${B:-build}
W=$B/bin/ppbench-worker
OUT=${OUT:?set OUT}
REPS=${REPS:-2}
BUDGET_S=${BUDGET_S:-480}
MODELS_GPU=${MODELS_GPU:-cuda opencl}
SUITES=${SUITES:-stream wilson staggered cg hacc}
mkdir -p "$OUT"
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
    source bench/gpu/lib.sh
    gpu_setup
    GPU=1
else
    GPU=0
    { date -u +%Y-%m-%dT%H:%M:%SZ; lscpu | grep -E 'Model name|^CPU\(s\)'; $W list; } >"$OUT/env.txt" 2>&1
fi
run() { # run NAME ARGS...: one standalone run, its report and its exit status kept
    local name=$1
    shift
    [ "$SECONDS" -lt "$BUDGET_S" ] || { echo "$name skipped: budget" >>"$OUT/runs.txt"; return; }
    timeout "${RUN_TIMEOUT:-120}" "$W" run "$@" --json >"$OUT/$name.json" 2>"$OUT/$name.err"
    echo "$name rc=$?" | tee -a "$OUT/runs.txt"
}
for r in $(seq "$REPS"); do
    for s in $SUITES; do
        if [ "$GPU" = 1 ]; then
            for m in $MODELS_GPU; do run "gpu0-$m-$s-$r" --platform gpu0 --model "$m" --suite "$s"; done
        fi
        run "cpu0-openmp-$s-$r" --platform cpu0 --model openmp --suite "$s"
        OMP_PROC_BIND=close OMP_PLACES=cores run "cpu0-openmp-bound-$s-$r" --platform cpu0 --model openmp --suite "$s"
    done
done
if [ "$GPU" = 1 ]; then
    for s in stream wilson; do
        # the host's CPU busy with STREAM for the whole of the GPU's run
        (for i in $(seq 20); do "$W" run --platform cpu0 --model openmp --suite stream --numtimes 50 >/dev/null 2>&1; done) &
        load=$!
        sleep 2
        BUDGET_S=999999 run "gpu0-cuda-$s-beside-cpu" --platform gpu0 --model cuda --suite "$s"
        kill "$load" 2>/dev/null
        pkill -f "ppbench-worker run --platform cpu0" 2>/dev/null
        wait
    done
    gpu_clocks_after
fi
tar -C "$OUT" -czf "$OUT/noise.tar.gz" --exclude noise.tar.gz . 2>/dev/null
