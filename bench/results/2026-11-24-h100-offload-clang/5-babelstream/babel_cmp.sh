#!/usr/bin/env bash
# BabelStream's OpenMP-target build (clang 19, same runtime and ptxas as ppbench's) beside ppbench omp-target
# (clang) and cuda on the H100, 3 interleaved rounds at 2^25 and 2^28 fp64
tar -xJf .gpucarry/offl-ppbench.tar.xz -C .offload-rt
. bench/gpu/lib.sh
offload_runtime .offload-rt
W=.offload-rt/ppbench/bin/ppbench-worker
OUT_SAVE=$OUT; gpu_setup >/dev/null 2>&1
R=$OUT/runs; mkdir -p $R
for n in 33554432 268435456; do
  nt=$([ $n = 33554432 ] && echo 100 || echo 20)
  for round in 1 2 3; do
    .gpucarry/ext/babel_omp_target --arraysize $n --numtimes $nt > $R/babel-$n-$round.txt 2>&1
    b=$(awk '/^Triad/ {print $2/1000}' $R/babel-$n-$round.txt); bc=$(awk '/^Copy/ {print $2/1000}' $R/babel-$n-$round.txt)
    for m in omp-target cuda; do
      PPBENCH_OMPTARGET_COMPILER=clang timeout 90 $W run --platform gpu0 --model $m --json --suite stream --kernels copy,triad --arraysize $n --numtimes $nt > $R/ppb-$m-$n-$round.json 2>$R/ppb-$m-$n-$round.err
    done
    p=$(python3 -c "import json,sys; d=json.load(open('$R/ppb-omp-target-$n-$round.json')); print(' '.join('%s %.1f %s' % (k['kernel'], k['bandwidth_bytes_per_s']/1e9, k['verified']) for k in d['kernels']))")
    c=$(python3 -c "import json,sys; d=json.load(open('$R/ppb-cuda-$n-$round.json')); print(' '.join('%s %.1f %s' % (k['kernel'], k['bandwidth_bytes_per_s']/1e9, k['verified']) for k in d['kernels']))")
    echo "n=$n round $round: babelstream-omp-target copy $bc triad $b GB/s | ppbench omp-target(clang) $p | ppbench cuda $c"
  done
done | tee $OUT/babel_cmp.txt
tar -C $OUT -czf $OUT/runs.tar.gz runs && rm -rf $R
