#!/usr/bin/env bash
# ad hoc: same-call triad, Wilson aosoa/soa, staggered hops table vs lattice (3lp-1 and the rest verified small)
set -u
D=$(mktemp -d); W=build/bin/ppbench-worker
. bench/gpu/lib.sh; OUT0=$OUT; OUT=$D; gpu_setup >/dev/null
$W run --platform gpu0 --model cuda --suite stream --kernels triad --arraysize 268435456 --numtimes 100 --float --json >$D/triad.json
for L in aosoa soa; do for P in "" --double; do
  $W run --platform gpu0 --model cuda --suite wilson --lattice 32x32x32x32 --layout $L $P --numtimes 20 --iterations 20 --json > $D/w_${L}${P}.json 2>>$D/err.txt
done; done
$W run --platform gpu0 --model opencl --suite wilson --lattice 32x32x32x32 --layout aosoa --numtimes 20 --iterations 20 --json > $D/w_ocl_aosoa.json 2>>$D/err.txt
$W run --platform gpu0 --model opencl --suite wilson --lattice 32x32x32x32 --layout aosoa --double --numtimes 20 --iterations 20 --json > $D/w_ocl_aosoa--double.json 2>>$D/err.txt
for s in 1lp 2lp 3lp-1 3lp-2 3lp-3 4lp-1 4lp-2; do
  for o in k i l none; do
    $W run --platform gpu0 --model cuda --suite staggered --lattice 8x8x8x16 --float --strategy $s --order $o --json > $D/v_${s}_$o.json 2>>$D/verr.txt || true
  done
done
for h in lattice table; do for o in k i; do for wg in 192 768; do
  PPBENCH_STAGGERED_HOPS=$h $W run --platform gpu0 --model cuda --suite staggered --lattice 32x32x32x32 --strategy 3lp-1 --order $o --work-group $wg --json > $D/s_${h}_${o}_$wg.json 2>>$D/err.txt
done; done; done
gpu_clocks_after
python3 - $D <<'PY'
import json,sys,glob,os
d=sys.argv[1]
t=json.load(open(d+'/triad.json'))['kernels'][0]['bandwidth_bytes_per_s']
print('triad GB/s %.1f' % (t/1e9))
for f in sorted(glob.glob(d+'/w_*.json'))+sorted(glob.glob(d+'/s_*.json')):
    try: k=json.load(open(f))['kernels'][0]
    except Exception as e: print(os.path.basename(f),'ERR',e); continue
    ceil=t*k['flops']/k['bytes_compulsory']/1e9
    print('%-30s %8.1f GF/s ver=%s %%ceil=%.1f' % (os.path.basename(f), k['gflops'], k['verified'], 100*k['gflops']/ceil))
bad=0; n=0
for f in sorted(glob.glob(d+'/v_*.json')):
    try: doc=json.load(open(f))
    except Exception: continue
    n+=1
    if not doc.get('verified'): bad+=1; print('NOT VERIFIED', f)
print('small fp32 verification runs:', n, 'unverified:', bad)
PY
grep -v "no \|has no\|order" $D/verr.txt | head -5; cat $D/err.txt | head -5
tar czf $OUT0/qexp.tgz -C $D .
