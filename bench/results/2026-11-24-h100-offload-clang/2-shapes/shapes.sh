#!/usr/bin/env bash
# clang omp-target launch shapes, 3 interleaved rounds, with the runtime setup of bench/gpu/offload.sh
tar -xJf .gpucarry/offl-ppbench.tar.xz -C .offload-rt
OFFLOAD_RT=.offload-rt
W=$OFFLOAD_RT/ppbench/bin/ppbench-worker
llvm=$(mktemp -d); tar -C "$llvm" -xJf "$OFFLOAD_RT/llvm.tar.xz"
has_lib() { ldconfig -p | awk -v n="$1" '$1 == n && /x86-64/ {f = 1} END {exit !f}'; }
for f in "$llvm"/llvm/fallback/*; do n=$(basename "$f"); has_lib "$n" || ln -s "$f" "$llvm/llvm/lib/$n"; done
export LD_LIBRARY_PATH=$OFFLOAD_RT/lib:$llvm/llvm/lib
R=$OUT/runs; mkdir -p $R
one() { # name model VAR=value...
    local name=$1 model=$2; shift 2
    env "$@" timeout 60 $W run --platform gpu0 --model $model --json --suite stream --kernels triad,dot,copy --numtimes 20 --arraysize $SIZE > $R/$name.json 2>$R/$name.err
    python3 - "$R/$name.json" "$name" <<'PY'
import json,sys
try: d=json.load(open(sys.argv[1]))
except Exception as e: print(sys.argv[2], 'ERR', e); sys.exit()
rs=d.get('results',[])
print(sys.argv[2], ' '.join('%s %.1f %s' % (r['kernel'], r.get('bandwidth_bytes_per_s',0)/1e9, r.get('verified')) for r in rs))
PY
}
for SIZE in 268435456 33554432; do
for round in 1 2 3; do
  one cuda-$SIZE-$round cuda
  for s in 0x0 0x256 0x512 2112x256 4224x256 4224x512 8448x256; do
    t=${s%x*}; th=${s#*x}
    one clang-$SIZE-$s-$round omp-target PPBENCH_OMPTARGET_COMPILER=clang PPBENCH_OMPTARGET_TEAMS=$t PPBENCH_OMPTARGET_THREADS=$th
  done
  [ $SIZE = 33554432 ] && break
done
done 2>&1 | tee $OUT/shapes.txt
tar -C $OUT -czf $OUT/runs.tar.gz runs && rm -rf $R
