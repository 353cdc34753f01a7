#!/usr/bin/env python3
"""PP over two platforms per suite kernel from the job documents of `bench/gpu/service.sh` (its logs folder:
job-<suite>-<model>[@cpu0].json, and the API's pp-<suite>.<kernel>.json).

Paper 002's PP: the harmonic mean over the platforms of the application efficiency (a model's figure of merit
over the best of any model on that platform, the same problem key), 0 where a model has no verified result.
"OpenMP" is one application over {cpu0, gpu0}: on each platform the better of openmp and omp-target.
Printed twice: without the flagged results (noisy, cache_resident, above_ceiling), as the API's default, and
with them; the first is checked against the API's own answers (pp-*.json) so that the table says what the
service computed. With --svg FILE, also the cascade plots (paper 003 Fig. 12, as the Portability page draws
them) of a few problems, flagged results counted, into one SVG: per application its efficiencies from high to low,
position k holding its k-th best platform, and the PP of its best k platforms.
Usage: bench/pp_table.py LOGDIR [CPU_PLATFORM GPU_PLATFORM] [--svg FILE]
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


COLORS = {"openmp": "#1f77b4", "omp-target": "#17becf", "OpenMP": "#2ca02c", "opencl": "#ff7f0e", "cuda": "#d62728"}
CASCADES = ["stream.triad", "wilson.dslash", "staggered.dslash", "cg.cg", "hacc.gravity", "hacc.sph"]


def cascade_svg(t, plats, path):
    """One panel per problem of CASCADES: each application's efficiencies sorted high to low (points, solid) and
    the PP of its best k platforms (dashed), k = 1..len(plats)."""
    W, H, M = 260, 200, 34
    panels = [(k, line) for k, line in sorted(t.items()) if f"{k[0]}.{k[1]}" in CASCADES]
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W * 3}" height="{H * ((len(panels) + 2) // 3) + 40}" '
           'font-family="sans-serif" font-size="10">']
    for i, ((suite, kernel, _), line) in enumerate(panels):
        x0, y0 = (i % 3) * W, (i // 3) * H

        def px(k):
            return x0 + M + (W - 2 * M) * (k / max(1, len(plats) - 1))

        def py(e):
            return y0 + H - M - (H - 2 * M) * e
        out.append(f'<text x="{x0 + M}" y="{y0 + 14}" font-weight="bold">{suite}.{kernel}</text>')
        out.append(f'<rect x="{x0 + M}" y="{y0 + M}" width="{W - 2 * M}" height="{H - 2 * M}" fill="none" stroke="#999"/>')
        for e in (0, 0.5, 1):
            out.append(f'<text x="{x0 + 4}" y="{py(e) + 3:.1f}">{e:g}</text>')
        for k in range(len(plats)):
            out.append(f'<text x="{px(k) - 16:.1f}" y="{y0 + H - M + 14}">{k + 1} platform{"s" if k else ""}</text>')
        for m in MODELS:
            effs = sorted(line[m][1], reverse=True)
            pts = " ".join(f"{px(k):.1f},{py(e):.1f}" for k, e in enumerate(effs))
            pps = [pp_of(effs[:k + 1]) for k in range(len(effs))]
            ppts = " ".join(f"{px(k):.1f},{py(e):.1f}" for k, e in enumerate(pps))
            c = COLORS[m]
            out.append(f'<polyline points="{pts}" fill="none" stroke="{c}"/>')
            out.append(f'<polyline points="{ppts}" fill="none" stroke="{c}" stroke-dasharray="4 3"/>')
            for k, e in enumerate(effs):
                out.append(f'<circle cx="{px(k):.1f}" cy="{py(e):.1f}" r="3" fill="{c}"/>')
    ly = H * ((len(panels) + 2) // 3) + 20
    for j, m in enumerate(MODELS):
        out.append(f'<rect x="{12 + j * 100}" y="{ly - 8}" width="10" height="10" fill="{COLORS[m]}"/>'
                   f'<text x="{26 + j * 100}" y="{ly + 1}">{m}</text>')
    out.append(f'<text x="{12 + len(MODELS) * 100}" y="{ly + 1}">solid: efficiency; dashed: PP of the best k</text>')
    out.append("</svg>")
    open(path, "w").write("\n".join(out) + "\n")


def main():
    args = sys.argv[1:]
    svg = None
    if "--svg" in args:
        i = args.index("--svg")
        svg = args[i + 1]
        del args[i:i + 2]
    logdir = args[0]
    rows = load(logdir)
    plats = args[1:3] or sorted({r["platform"] for r in rows})
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
    if svg:
        cascade_svg(loose, plats, svg)
    return 1 if mismatched else 0


if __name__ == "__main__":
    sys.exit(main())
