#!/usr/bin/env python3
"""PP over two platforms per suite kernel from the job documents of `bench/gpu/service.sh` (its logs folder:
job-<suite>-<model>[@cpu0].json, and the API's pp-<suite>.<kernel>.json).

Paper 002's PP: the harmonic mean over the platforms of the application efficiency (a model's figure of merit
over the best of any model on that platform, the same problem key), 0 where a model has no verified result.
"OpenMP" is one application over {cpu0, gpu0}: on each platform the better of openmp and omp-target.
Printed twice: without the flagged results (noisy, cache_resident, above_ceiling), as the API's default, and
with them; the first is checked against the API's own answers (pp-*.json) so that the table says what the
service computed. Usage: bench/pp_table.py LOGDIR [CPU_PLATFORM GPU_PLATFORM]
"""
import glob
import json
import os
import sys

MODELS = ["openmp", "omp-target", "OpenMP", "opencl", "cuda"]


def load(logdir):
    rows = []
    for path in glob.glob(os.path.join(logdir, "job-*.json")):
        doc = json.load(open(path))
        for r in doc.get("results") or []:
            if r.get("verified"):
                rows.append(r)
    return rows


def pp_of(effs):
    return 0.0 if not effs or min(effs) <= 0 else len(effs) / sum(1 / e for e in effs)


def table(rows, plats, with_flagged):
    out = {}
    for key in sorted({(r["suite"], r["kernel"], r["problem_key"]) for r in rows}):
        best = {}  # (model, platform) -> fom
        for r in rows:
            if (r["suite"], r["kernel"], r["problem_key"]) != key or r["platform"] not in plats:
                continue
            if r["flags"] and not with_flagged:
                continue
            k = (r["model"], r["platform"])
            best[k] = max(best.get(k, 0), r["bandwidth_bytes_per_s"])
        top = {p: max([f for (m, q), f in best.items() if q == p] or [0]) for p in plats}
        eff = {(m, p): (f / top[p] if top[p] else 0) for (m, p), f in best.items()}
        line = {}
        for m in ["openmp", "omp-target", "opencl", "cuda"]:
            line[m] = (pp_of([eff.get((m, p), 0) for p in plats]), [eff.get((m, p), 0) for p in plats])
        union = [max(eff.get(("openmp", p), 0), eff.get(("omp-target", p), 0)) for p in plats]
        line["OpenMP"] = (pp_of(union), union)
        out[key] = line
    return out


def main():
    logdir = sys.argv[1]
    rows = load(logdir)
    plats = sys.argv[2:4] or sorted({r["platform"] for r in rows})
    strict, loose = table(rows, plats, False), table(rows, plats, True)
    # the strict table against the API's answers (same platforms, the key the API picked)
    checked = mismatched = 0
    for path in glob.glob(os.path.join(logdir, "pp-*.*.json")):
        api = json.load(open(path))
        key = tuple(api["problem"].split(".")) + (api["problem_key"],)
        for a in api.get("applications", []):
            mine = strict.get(key, {}).get(a["model"])
            if mine is None or a["pp"] is None:
                continue
            checked += 1
            if abs(mine[0] - a["pp"]) > 1e-6:
                mismatched += 1
                print(f"MISMATCH {key} {a['model']}: here {mine[0]:.6f}, API {a['pp']:.6f}", file=sys.stderr)
    print(f"platforms: {', '.join(plats)}; PP (efficiency on each platform); {checked} values checked against the "
          f"API's pp documents, {mismatched} differ")
    for title, t in (("verified, unflagged results (the API's default)", strict),
                     ("verified results, flagged ones included", loose)):
        print(f"\n{title}\n")
        print("| problem | " + " | ".join(MODELS) + " |")
        print("| --- |" + " ---: |" * len(MODELS))
        for (suite, kernel, pkey), line in sorted(t.items()):
            cells = [f"{line[m][0]:.2f} ({'/'.join(f'{e:.2f}' for e in line[m][1])})" for m in MODELS]
            print(f"| {suite}.{kernel} | " + " | ".join(cells) + " |")
    return 1 if mismatched else 0


if __name__ == "__main__":
    sys.exit(main())
