#!/usr/bin/env python3
"""Summarise bench/host/binding.sh's reports: per mode (bound, unbound) and kernel, over the runs, the median and
the worst of the timed samples' coefficient of variation and of (10th percentile - min) / min (the warm-up sample
excluded, as the statistics exclude it), the best and the median of the runs' bandwidth (GB/s, from each run's
minimum time), and what the runs were bound with.
    bench/host/binding.py RAWDIR"""
import glob, json, os, statistics, sys


def p10(xs):
    s = sorted(xs)
    return s[max(0, -(-len(s) // 10) - 1)]  # nearest rank: ceil(n / 10)


def main(raw):
    runs = {}
    for path in sorted(glob.glob(os.path.join(raw, "*.json"))):
        mode = os.path.basename(path).rsplit("-", 1)[1][:-5]
        try:
            with open(path) as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            print(f"# {path}: {e}")
            continue
        runs.setdefault(mode, []).append(doc)
    for mode, docs in sorted(runs.items()):
        p = docs[0]["provenance"]
        b = p.get("backend", {})
        print(f"{mode}: {len(docs)} runs; cpu_binding.default {p.get('cpu_binding.default')!r}, user "
              f"{p.get('cpu_binding.user')!r}; threads {b.get('openmp.threads', '-')}, proc_bind "
              f"{b.get('openmp.proc_bind', '-')}, places {b.get('openmp.num_places', '-')}; "
              f"array_size {docs[0]['problem'].get('array_size')}, samples {len(docs[0]['kernels'][0]['times_s'])}")
        print(f"  {'kernel':8} {'CV med':>7} {'CV max':>7} {'p10/min-1 med':>14} {'max':>7} {'best GB/s':>10} "
              f"{'median GB/s':>12}")
        for i, k in enumerate(docs[0]["kernels"]):
            cvs, tails, bws = [], [], []
            for d in docs:
                t = d["kernels"][i]["times_s"][1:]
                cvs.append(statistics.pstdev(t) / statistics.mean(t))
                tails.append(p10(t) / min(t) - 1)
                bws.append(d["kernels"][i]["bandwidth_bytes_per_s"] * 1e-9)
            print(f"  {k['kernel']:8} {100 * statistics.median(cvs):6.1f}% {100 * max(cvs):6.1f}% "
                  f"{100 * statistics.median(tails):13.1f}% {100 * max(tails):6.1f}% {max(bws):10.1f} "
                  f"{statistics.median(bws):12.1f}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    main(sys.argv[1])
