#!/usr/bin/env bash
# ad hoc, one call: hacc + staggered on omp-target vs cuda (bench/gpu/offload_hacc.sh), then every hacc variant
# of every model on cpu0 and gpu0 at one problem (fp32, 16384 leaf pairs of 128, 10 samples) for PP by policy.
set -u
cd .gpucarry/m10
D=$(mktemp -d)
W=build/bin/ppbench-worker OFFLOAD_RT=$PWD/rt OUT=$D/offload BUDGET_S=200 bash bench/gpu/offload_hacc.sh > $D/offload.log 2>&1
cat $D/offload/summary.txt 2>/dev/null
export LD_LIBRARY_PATH=$PWD/rt
W=build/bin/ppbench-worker
OUT0=$OUT; OUT=$D; . bench/gpu/lib.sh; gpu_setup >/dev/null; OUT=$OUT0
mkdir -p $D/pp
run() { local plat=$1 model=$2 var=$3; timeout 120 $W run --platform $plat --model $model --suite hacc --leaf-pairs 16384 --numtimes 10 --variant $var --json > $D/pp/${plat}_${model}_${var}.json 2>$D/pp/${plat}_${model}_${var}.err; echo "$plat $model $var exit $?"; }
export OMP_PROC_BIND=spread OMP_PLACES=cores
for v in scalar simd; do run cpu0 openmp $v; done
for v in select memory-32 memory-object broadcast; do run cpu0 opencl $v; done
for v in select memory-32 memory-object broadcast; do run gpu0 cuda $v; run gpu0 opencl $v; done
for v in broadcast scalar simd select; do run gpu0 omp-target $v; done
python3 - $D/pp <<'PY'
import json,glob,os,sys
for f in sorted(glob.glob(sys.argv[1]+'/*.json')):
    try: d=json.load(open(f))
    except Exception: print(os.path.basename(f), 'no JSON', open(f[:-5]+'.err').read().strip()[-120:]); continue
    ks={k['kernel']:(k.get('gflops'),k.get('verified'),k.get('error')) for k in d.get('kernels',[])}
    print(os.path.basename(f), d.get('verified'), ks)
PY
tar czf $OUT/m10.tgz -C $D .
