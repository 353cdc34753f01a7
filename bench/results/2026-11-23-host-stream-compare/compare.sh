#!/usr/bin/env bash
# ad hoc: the host's OpenMP STREAM triad, ppbench against McCalpin's STREAM and BabelStream's OpenMP build,
# 2^27 fp64, 6 interleaved rounds, one call on the GPU machine's host.
set -u
E=.gpucarry/ext; W=build/bin/ppbench-worker; D=$(mktemp -d)
export OMP_PROC_BIND=spread OMP_PLACES=cores OMP_NUM_THREADS=$(nproc)
lscpu | grep -E "Model name|^CPU\(s\)|NUMA node\(s\)|Socket" > $D/env.txt
for r in 1 2 3 4 5 6; do
  $W run --platform cpu0 --model openmp --suite stream --arraysize 134217728 --numtimes 20 --json > $D/ppbench.$r.json 2>$D/ppbench.$r.err
  $E/stream_mccalpin > $D/mccalpin.$r.txt 2>&1
  $E/babelstream_omp -s 134217728 -n 20 --csv > $D/babel.$r.csv 2>&1
done
python3 - $D <<'PY'
import json,sys,glob,statistics as st,csv
d=sys.argv[1]; res={'ppbench':[], 'mccalpin':[], 'babelstream':[]}
for r in range(1,7):
    try:
        doc=json.load(open(f'{d}/ppbench.{r}.json'))
        res['ppbench'].append([k['bandwidth_bytes_per_s']/1e9 for k in doc['kernels'] if k['kernel']=='triad'][0])
    except Exception as e: print('ppbench',r,e)
    for line in open(f'{d}/mccalpin.{r}.txt'):
        if line.startswith('Triad:'): res['mccalpin'].append(float(line.split()[1])/1e3)
    for row in csv.reader(open(f'{d}/babel.{r}.csv')):
        if row and row[0]=='triad': res['babelstream'].append(float(row[2])/1e3)
for k,v in res.items():
    if v: print('%-12s triad GB/s: min %.1f median %.1f max %.1f  (%s)'%(k,min(v),st.median(v),max(v),' '.join('%.1f'%x for x in v)))
if res['ppbench'] and res['mccalpin'] and res['babelstream']:
    m=st.median(res['ppbench'])
    print('ppbench / mccalpin %.3f, ppbench / babelstream %.3f (medians)'%(m/st.median(res['mccalpin']), m/st.median(res['babelstream'])))
PY
head -3 $D/babel.1.csv
tar czf $OUT/host-stream.tgz -C $D .
