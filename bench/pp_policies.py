#!/usr/bin/env python3
"""PP against code divergence per variant policy over two platforms, from stored reports (issue 24; paper 003
Sec. 6, the data of its navigation chart), as GET /api/v1/pp/policies defines them:

    bench/pp_policies.py REPORTS LINESETS [PRECISION]

REPORTS holds <platform>_<model>_<variant>.json, each `ppbench-worker run --json` of one suite at one problem
(bench/gpu/hacc_pp.sh writes them); LINESETS is a build's build/gen/linesets.txt ("suite model variant
precision fingerprint..."). A run that did not verify, or has no report, is unsupported there (efficiency 0).
Application efficiency: a run's GFLOP/s over the best of every run on that platform; a policy runs its best
verified member on each platform; PP is the harmonic mean over the platforms (0 when one has none); code
divergence is the mean pairwise Jaccard distance between the line sets of the members chosen on each pair of
platforms (kernels/divergence.c), so one member everywhere is 0.
"""
import glob
import itertools
import json
import os
import sys


def load(folder):
    runs = {}  # (platform, model, variant) -> {kernel: gflops}, or None when unsupported or unverified
    for f in sorted(glob.glob(os.path.join(folder, '*_*_*.json'))):
        plat, model, variant = os.path.basename(f)[:-5].split('_', 2)
        try:
            d = json.load(open(f))
        except ValueError:
            d = None
        ok = d and d.get('verified') and all(k.get('verified') for k in d['kernels'])
        runs[(plat, model, variant)] = {k['kernel']: k['gflops'] for k in d['kernels']} if ok else None
        suite = d['suite'] if d else None
    return runs


def linesets(path, suite, precision):
    sets = {}
    for line in open(path):
        w = line.split()
        if len(w) >= 4 and w[0] == suite and w[3] == precision:
            sets[(w[1], w[2])] = set(w[4:])
    return sets


def distance(a, b):
    return 1 - len(a & b) / len(a | b) if a | b else 0.0


def main():
    runs = load(sys.argv[1])
    precision = sys.argv[3] if len(sys.argv) > 3 else 'fp32'
    suite = 'hacc'
    for f in glob.glob(os.path.join(sys.argv[1], '*.json')):
        try:
            suite = json.load(open(f))['suite']
            break
        except (ValueError, KeyError):
            pass
    sets = linesets(sys.argv[2], suite, precision)
    platforms = sorted({p for p, _, _ in runs})
    kernels = sorted({k for r in runs.values() if r for k in r})
    members = sorted({(m, v) for _, m, v in runs})
    models = sorted({m for m, _ in members})
    policies = [(f'{m} (best)', [x for x in members if x[0] == m]) for m in models]
    policies += [(f'{m} ({v})', [(m, v)]) for m, v in members]
    policies += [('OpenMP: openmp + omp-target (best of each)', [x for x in members if x[0] in ('openmp', 'omp-target')]),
                 ('openmp simd + omp-target simd', [('openmp', 'simd'), ('omp-target', 'simd')]),
                 ('openmp simd + cuda select', [('openmp', 'simd'), ('cuda', 'select')]),
                 ('openmp simd + opencl broadcast', [('openmp', 'simd'), ('opencl', 'broadcast')]),
                 ('any model, any variant (best everywhere)', members)]
    for k in kernels:
        best = {p: max((r[k] for (q, _, _), r in runs.items() if q == p and r), default=0) for p in platforms}
        print(f'## {suite}.{k} {precision}: best ' +
              ', '.join(f'{p} {best[p]:.1f} GFLOP/s' for p in platforms))
        rows = []
        for name, ms in policies:
            chosen, effs = {}, []
            for p in platforms:
                cands = [(runs[(p, m, v)][k], (m, v)) for m, v in ms if runs.get((p, m, v))]
                f, mv = max(cands) if cands else (0, None)
                chosen[p] = mv
                effs.append(f / best[p] if best[p] else 0)
            pp = len(effs) / sum(1 / e for e in effs) if all(e > 0 for e in effs) else 0.0
            cd = None
            if all(chosen.values()) and all(chosen[p] in sets for p in platforms):
                pairs = list(itertools.combinations(platforms, 2))
                cd = sum(distance(sets[chosen[a]], sets[chosen[b]]) for a, b in pairs) / len(pairs)
            rows.append((pp, name, effs, cd, chosen))
        for pp, name, effs, cd, chosen in sorted(rows, key=lambda r: -r[0]):
            picks = ', '.join(f'{p} {"/".join(chosen[p]) if chosen[p] else "none"}' for p in platforms)
            print(f'  {name:45s} PP {pp:.3f}  CD {"n/a  " if cd is None else f"{cd:.3f}"}  e = ' +
                  ', '.join(f'{e:.3f}' for e in effs) + f'  ({picks})')


main()
