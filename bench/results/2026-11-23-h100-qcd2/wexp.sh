#!/usr/bin/env bash
# ad hoc: Wilson hops/pad experiment, one call
set -u
OUT=${OUT:-out}; mkdir -p $OUT
W=build/bin/ppbench-worker
. bench/gpu/lib.sh
gpu_setup >/dev/null
$W run --platform gpu0 --model cuda --suite stream --kernels triad --arraysize 268435456 --numtimes 100 --float --json >$OUT/triad.json
for prec in fp32 fp64; do
  F=""; [ $prec = fp64 ] && F=--double
  for cfg in ${CFGS:-table_0:PPBENCH_WILSON_HOPS=table:PPBENCH_WILSON_PAD=0 lat_0:PPBENCH_WILSON_HOPS=lattice:PPBENCH_WILSON_PAD=0 lat_64:PPBENCH_WILSON_HOPS=lattice:PPBENCH_WILSON_PAD=64 lat_1056:PPBENCH_WILSON_HOPS=lattice:PPBENCH_WILSON_PAD=1056 table_1056:PPBENCH_WILSON_HOPS=table:PPBENCH_WILSON_PAD=1056 lat_0_wg256:PPBENCH_WILSON_HOPS=lattice:PPBENCH_WILSON_WG=256 lat_0_wg64:PPBENCH_WILSON_HOPS=lattice:PPBENCH_WILSON_WG=64 lat_0_r255:PPBENCH_WILSON_HOPS=lattice:PPBENCH_WILSON_REGS=255 lat_0_r128:PPBENCH_WILSON_HOPS=lattice:PPBENCH_WILSON_REGS=128}; do
    IFS=: read -r tag e1 e2 <<<"$cfg"
    echo "== $prec $tag" >&2
    env $e1 $e2 $W run --platform gpu0 --model cuda --suite wilson --lattice 32x32x32x32 --layout ${LAYOUT:-soa} $F --numtimes 20 --iterations 20 --json > $OUT/w_${prec}_$tag.json 2>$OUT/w_${prec}_$tag.err || tail -c 300 $OUT/w_${prec}_$tag.err
  done
done
gpu_clocks_after
python3 - "$OUT" <<'PY'
import json,sys,glob,os
out=sys.argv[1]
t=json.load(open(out+'/triad.json'))['kernels'][0]['bandwidth_bytes_per_s']
print('triad GB/s', t/1e9)
for f in sorted(glob.glob(out+'/w_*.json')):
    try:
        d=json.load(open(f)); k=d['kernels'][0]
    except Exception as e:
        print(os.path.basename(f), 'ERR', e); continue
    ceil = t*k['flops']/k['bytes_compulsory']/1e9
    print('%-28s %9.1f GF/s ver=%s  %%ceil=%.1f' % (os.path.basename(f), k['gflops'], k['verified'], 100*k['gflops']/ceil))
PY
