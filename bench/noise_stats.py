#!/usr/bin/env python3
"""The stability statistics of every kernel of ppbench-worker --json reports (bench/gpu/noise.sh):
n, CV (stddev / mean), max/min, the best tenth's spread ((x_(k) - min) / min, k = max(2, ceil(n / 10))), the
median over the minimum, and the 95 % confidence interval of the mean over the mean (Student's t), over the timed
samples (the last stats_s.count of times_s). One line per kernel; --csv for a table."""
import json, math, sys

T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
        2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045,
        2.042]

def t975(df):
    return T975[df - 1] if df <= 30 else 1.96 + 2.4 / df

def stats(x):
    n = len(x)
    s = sorted(x)
    mean = sum(x) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in x) / (n - 1)) if n > 1 else 0
    k = max(2, math.ceil(n / 10))
    med = s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2
    return dict(n=n, cv=sd / mean if mean else 0, max_min=s[-1] / s[0] if s[0] else 0,
                best10=(s[min(k, n) - 1] - s[0]) / s[0] if s[0] else 0, median_min=med / s[0] if s[0] else 0,
                mean_ci=t975(n - 1) * sd / math.sqrt(n) / mean if n > 1 and mean else 0)

def main():
    csv = '--csv' in sys.argv
    files = [a for a in sys.argv[1:] if a != '--csv']
    if csv:
        print('run,suite,kernel,timing,n,cv,max_min,best10,median_min,mean_ci')
    for f in files:
        try:
            d = json.load(open(f))
        except Exception:
            continue
        suite = d.get('suite', '?')
        timing = (d.get('problem') or {}).get('timing') or ('mean' if suite == 'staggered' else 'min')
        for k in d.get('kernels', []):
            t = k.get('times_s') or []
            c = (k.get('stats_s') or {}).get('count') or len(t)
            x = t[len(t) - c:]
            if len(x) < 2:
                continue
            st = stats(x)
            name = f.rsplit('/', 1)[-1].removesuffix('.json')
            if csv:
                print(f"{name},{suite},{k.get('kernel')},{timing},{st['n']},{st['cv']:.4f},{st['max_min']:.3f},"
                      f"{st['best10']:.4f},{st['median_min']:.4f},{st['mean_ci']:.4f}")
            else:
                print(f"{name:36s} {k.get('kernel'):10s} {timing:4s} n={st['n']:4d} cv={100*st['cv']:6.2f}% "
                      f"max/min={st['max_min']:6.2f} best10={100*st['best10']:6.2f}% "
                      f"median/min={st['median_min']:.3f} ci95={100*st['mean_ci']:6.2f}%")

main()
