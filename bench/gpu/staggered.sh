#!/usr/bin/env bash
# The MILC staggered Dslash (paper 001) on the GPU machine (../shared/GPU.md), like the paper's Fig. 6: every
# strategy x work-item order x work-group size (96, 192, 384, 768; 2LP also 256; 1LP, whose global size is
# L^4/2 = 2^19 at L = 32: 128, 256, 512, 1024) on CUDA and on NVIDIA OpenCL, fp64, 32^4, the paper's timing
# rule (one warm-up, then 10 runs of 100 applications, rates from the mean). The driver verifies every run
# against the five-loop reference. First (TRIAD=1) the STREAM triad on TRIAD_MODEL (cuda) at 2^28 fp32 elements,
# as bench/gpu/wilson.sh, so that every run is judged against the ceiling of its compulsory traffic at the triad
# of the same call (bench/qcd_summary.py: each link, the input vector and the output once, 2400 B per site in
# fp64; the paper's no-reuse count, 3120 B, is no ceiling). Before the sweep (VERIFY=1): every strategy and
# order in fp32 on 8x8x8x16 in both models (work-group 96, 1LP 128). With NCU=1, first Nsight Compute on one
# CUDA launch of 3LP-1 k-major, work-group 768.
# Run from the repository root (or a folder holding build/bin, build/lib and bench/) on that machine:
#   bench/gpu/staggered.sh [OUTDIR]
# Results in OUTDIR: env.txt (GPU, driver, clocks), triad.json, verify.json and sweep.json (one worker JSON
# document per run), sweep.tsv (strategy, order, work-group, model, GFLOP/s, verified, seconds the run took),
# summary.txt (GFLOP/s on CUDA and OpenCL per configuration, the best of each model marked *), ceiling.txt
# (bench/qcd_summary.py OUTDIR: every sweep run's share of the compulsory-traffic ceiling), ncu.csv.
# Knobs: PLATFORM (gpu0), LATTICE (32x32x32x32), RUNS (10), ITERATIONS (100), MODELS ("cuda opencl"), TRIAD (1),
# TRIAD_MODEL (cuda), TRIAD_N (268435456), STRATEGIES (all seven, in the order swept), VERIFY (1), VERIFY_MODELS
# (MODELS), NCU (0), DEADLINE (seconds
# from the start after which no new sweep run starts; 0: none), PREVIOUS (a sweep.tsv of an earlier session on
# the same kind of GPU: its verified configurations are not run again but copied into this sweep.tsv, so that a
# sweep longer than one session can be finished in another; the table then mixes the two sessions).
set -u
OUT=${1:-${OUT:-bench-out}}
mkdir -p "$OUT"
W=${W:-build/bin/ppbench-worker}
PLATFORM=${PLATFORM:-gpu0}
LATTICE=${LATTICE:-32x32x32x32}
RUNS=${RUNS:-10}
ITERATIONS=${ITERATIONS:-100}
MODELS=${MODELS:-"cuda opencl"}
STRATEGIES=${STRATEGIES:-"3lp-1 3lp-2 3lp-3 4lp-1 4lp-2 2lp 1lp"}
VERIFY=${VERIFY:-1}
VERIFY_MODELS=${VERIFY_MODELS:-$MODELS}
PREVIOUS=${PREVIOUS:-}
DEADLINE=${DEADLINE:-0}
NCU=${NCU:-0}
TRIAD=${TRIAD:-1}
TRIAD_MODEL=${TRIAD_MODEL:-cuda}
TRIAD_N=${TRIAD_N:-268435456}
HERE=$(dirname "$0")
start=$(date +%s)

. "$(dirname "$0")/lib.sh"
gpu_setup

if [ "$TRIAD" = 1 ]; then
    echo "== triad $TRIAD_MODEL fp32 n=$TRIAD_N" >&2
    $W run --platform "$PLATFORM" --model "$TRIAD_MODEL" --suite stream --kernels triad --arraysize "$TRIAD_N" \
        --numtimes 100 --float --json >"$OUT/triad.json" || echo "triad failed (exit $?)" >&2
fi

orders_of() {
    case $1 in
    1lp | 2lp) echo none ;;
    4lp-2) echo "l i" ;;
    *) echo "k i" ;;
    esac
}

work_groups_of() {
    case $1 in
    1lp) echo "128 256 512 1024" ;;
    2lp) echo "96 192 256 384 768" ;;
    *) echo "96 192 384 768" ;;
    esac
}

# One worker run: appends its JSON document to FILE; prints "GFLOP/s verified" (or "- failed").
run_one() {
    local file=$1 one
    shift
    one=$(mktemp)
    if $W run --platform "$PLATFORM" --suite staggered --json "$@" >"$one" 2>"$one.err"; then :; fi
    cat "$one" >>"$file"
    if [ -s "$one" ]; then
        printf '%s %s\n' "$(grep -m1 '"gflops"' "$one" | tr -dc '0-9.e+-')" \
            "$(grep -m1 '"verified"' "$one" | grep -q true && echo yes || echo NO)"
    else
        echo "- failed: $(tail -n 1 "$one.err")" >&2
        echo "- failed"
    fi
    rm -f "$one" "$one.err"
}

# Nsight Compute on one CUDA launch of 3LP-1 k-major, work-group 768 (the paper's best): what limits it.
if [ "$NCU" = 1 ]; then
    ncu=$(ls /usr/local/cuda/bin/ncu /usr/local/cuda/nsight-compute*/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -n 1)
    ${ncu:-ncu} --csv -k 'regex:stag_' --launch-skip 1 --launch-count 1 \
        --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,sm__warps_active.avg.pct_of_peak_sustained_active,lts__t_sector_hit_rate.pct,l1tex__t_sector_hit_rate.pct,launch__registers_per_thread,launch__occupancy_limit_registers,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum \
        $W run --platform "$PLATFORM" --model cuda --suite staggered --lattice "$LATTICE" --strategy 3lp-1 --order k \
        --work-group 768 --runs 1 --iterations 2 >"$OUT/ncu.csv" 2>&1
    echo "ncu exit $?: $OUT/ncu.csv"
fi

if [ "$VERIFY" = 1 ]; then
    : >"$OUT/verify.json"
    for s in $STRATEGIES; do
        for o in $(orders_of "$s"); do
            for m in $VERIFY_MODELS; do
                wg=96; [ "$s" = 1lp ] && wg=128 # fits every model (NVIDIA OpenCL: at most 256)
                r=$(run_one "$OUT/verify.json" --model "$m" --lattice 8x8x8x16 --strategy "$s" --order "$o" --float \
                    --work-group "$wg" --runs 1 --iterations 2)
                echo "verify fp32 8x8x8x16 $m $s $o wg $wg: $r"
            done
        done
    done
fi

: >"$OUT/sweep.json"
: >"$OUT/sweep.tsv"
[ -n "$PREVIOUS" ] && awk -F'\t' '$6 == "yes"' "$PREVIOUS" >>"$OUT/sweep.tsv"
for s in $STRATEGIES; do
    for o in $(orders_of "$s"); do
        for wg in $(work_groups_of "$s"); do
            for m in $MODELS; do
                if [ -n "$PREVIOUS" ] && awk -F'\t' -v k="$s $o $wg $m" '$1" "$2" "$3" "$4 == k && $6 == "yes" {f = 1} END {exit !f}' "$PREVIOUS"; then
                    continue
                fi
                if [ "$DEADLINE" -gt 0 ] && [ $(($(date +%s) - start)) -ge "$DEADLINE" ]; then
                    echo "deadline: $s $o $wg $m and what follows not run" >&2
                    break 4
                fi
                t0=$(date +%s%N)
                r=$(run_one "$OUT/sweep.json" --model "$m" --lattice "$LATTICE" --strategy "$s" --order "$o" \
                    --work-group "$wg" --double --runs "$RUNS" --iterations "$ITERATIONS")
                t=$((($(date +%s%N) - t0) / 100000000))
                t="$((t / 10)).$((t % 10))"
                printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$s" "$o" "$wg" "$m" "${r% *}" "${r#* }" "$t" >>"$OUT/sweep.tsv"
                echo "$s $o wg $wg $m: $r (${t}s)"
            done
        done
    done
done
gpu_clocks_after

# The table: one row per configuration, GFLOP/s per model, * on each model's best, ! where a run failed
# verification.
awk -F'\t' '
    { key = $1 "\t" $2 "\t" $3; if (!(key in seen)) { seen[key] = 1; keys[n++] = key }
      v = ($5 == "-" ? "failed" : $5 + 0); if ($6 != "yes" && $5 != "-") v = v "!"; g[key, $4] = v
      if ($5 != "-" && $6 == "yes" && $5 + 0 > best[$4]) { best[$4] = $5 + 0; bestkey[$4] = key } }
    END {
        printf "%-8s %-5s %5s %12s %12s %8s\n", "strategy", "order", "wg", "cuda GFLOP/s", "opencl GFLOP/s", "ocl/cuda"
        for (i = 0; i < n; i++) {
            k = keys[i]; split(k, f, "\t")
            c = ((k, "cuda") in g) ? g[k, "cuda"] : "-"; o = ((k, "opencl") in g) ? g[k, "opencl"] : "-"
            if (bestkey["cuda"] == k) c = c "*"; if (bestkey["opencl"] == k) o = o "*"
            r = (c + 0 > 0 && o + 0 > 0) ? sprintf("%.2f", (o + 0) / (c + 0)) : "-"
            printf "%-8s %-5s %5s %12s %12s %8s\n", f[1], f[2], f[3], c, o, r
        }
    }' "$OUT/sweep.tsv" >"$OUT/summary.txt"
echo "lattice $LATTICE fp64, $RUNS runs of $ITERATIONS, GFLOP/s from the mean (* best of the model, ! not verified)"
cat "$OUT/summary.txt"
if [ -s "$OUT/triad.json" ]; then
    python3 "$HERE/../qcd_summary.py" "$OUT" >"$OUT/ceiling.txt" && head -n 1 "$OUT/ceiling.txt" &&
        echo "every run against that ceiling: $OUT/ceiling.txt"
fi
echo "done in $(($(date +%s) - start)) s: $OUT" >&2
