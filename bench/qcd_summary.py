#!/usr/bin/env python3
"""Summarise the lattice QCD benchmarks (bench/gpu/wilson.sh, bench/host/qcd.sh) against the triad roofline.

    bench/qcd_summary.py DIR

Reads DIR/triad.json (the STREAM triad of the same run: the best verified one on the platform) and
DIR/wilson.json, DIR/staggered.json and DIR/sweep.json where present: streams of the worker's JSON documents.
For every run the roofline is the triad bandwidth times the suite's flop per byte of its R = 0 model (Wilson:
1320 per 360 F; staggered: 1146 per 390 F), and the run's share of it. For every Wilson run it prints GFLOP/s, the effective
bandwidth of the R = 0 byte model (Eq. 2: 1440 B per site in fp32, 2880 B in fp64), the roofline
(triad bandwidth x 1320 / (360 F) flop per byte) and the run's share of it, and the reuse R that the achieved
figure implies: the bytes per site that the triad bandwidth moves in the time of one site's 1320 flop, read as
Eq. 2 with r = 0, (8 x 18 + 24 (8 - R) + 24) F, solved for R (r = 1, a read for ownership of the output, adds
1 to R). Then OpenCL as a fraction of CUDA per layout and precision. Every figure comes from the best sample
(the worker's rule); a run that failed verification is marked and left out of the ratios.
"""
import json
import sys

FLOPS = 1320


def documents(path):
    """The JSON documents of a file holding several one after another ([] if the file is missing)."""
    try:
        text = open(path).read()
    except FileNotFoundError:
        return []
    dec, pos, out = json.JSONDecoder(), 0, []
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            return out
        doc, pos = dec.raw_decode(text, pos)
        out.append(doc)


def triad_bandwidth(docs):
    """The best triad bandwidth (bytes/s) among the STREAM documents, with its array size, precision, model."""
    best = None
    for d in docs:
        if d.get("suite") != "stream":
            continue
        for k in d["kernels"]:
            if k["kernel"] == "triad" and k.get("verified") and (best is None or k["bandwidth_bytes_per_s"] > best[0]):
                best = (k["bandwidth_bytes_per_s"], d["problem"]["array_size"], d["problem"]["precision"],
                        d["model"])
    return best


def implied_reuse(gflops, triad, elem):
    """R of Eq. 2 (r = 0) that makes the triad bandwidth deliver gflops."""
    bytes_per_site = FLOPS * triad / (gflops * 1e9)
    return 8 - (bytes_per_site / elem - 168) / 24


def knobs(d):
    """The launch choices of a run: work-group size and the experiment variables it ran with."""
    env = d.get("provenance", {})
    be = env.get("backend", {})
    v = d["variant"]
    parts = ["wg%d" % v["work_group_size"]] if v["work_group_size"] else ["%d threads" % v["threads"]]
    budget = be.get("cuda.wilson_max_regs", be.get("opencl.wilson_max_regs"))
    if budget is not None:
        parts.append("budget" + budget.split()[0])
    if env.get("env.PPBENCH_OPENCL_WILSON_OPTIONS"):
        parts.append("'" + env["env.PPBENCH_OPENCL_WILSON_OPTIONS"] + "'")
    if be.get("cuda.wilson_kernel_regs"):
        parts.append("regs" + be["cuda.wilson_kernel_regs"])
    if be.get("cuda.wilson_index_bits") or be.get("opencl.wilson_index_bits"):
        parts.append("idx" + (be.get("cuda.wilson_index_bits") or be.get("opencl.wilson_index_bits")))
    if be.get("opencl.wilson_kernel_max_work_group"):
        parts.append("clmaxwg" + be["opencl.wilson_kernel_max_work_group"])
    return " ".join(parts)


def variant(d):
    """The layout (Wilson) or strategy/order (staggered) of a run."""
    v = d["variant"]
    if d["suite"] == "wilson":
        return v["layout"]
    return v["strategy"] + ("/" + v["order"] if v["order"] != "none" else "")


def table(docs, triad, title):
    rows = []
    print("\n" + title)
    print("%-9s %-7s %-10s %-5s %-12s %9s %9s %9s %8s %7s %-4s  %s" % (
        "suite", "model", "variant", "prec", "lattice", "GFLOP/s", "GB/s", "roofGF/s", "%roof", "R", "ok", "launch"))
    for d in docs:
        if d.get("suite") not in ("wilson", "staggered"):
            continue
        p, k = d["problem"], d["kernels"][0]
        elem = p["element_bytes"]
        roof = triad * k["flops"] / k["bytes"] / 1e9
        r = "%7.2f" % implied_reuse(k["gflops"], triad, elem) if d["suite"] == "wilson" else "%7s" % "-"
        lat = "x".join(str(x) for x in p["lattice"])
        it = " it%d" % p["iterations"] + (" runs%d %s" % (p["runs"], p["timing"]) if d["suite"] == "staggered" else "")
        row = (d["suite"], d["model"], variant(d), p["precision"], lat, k["gflops"], k["bandwidth_bytes_per_s"] / 1e9,
               roof, 100 * k["gflops"] / roof, r, "yes" if d["verified"] else "NO", knobs(d) + it)
        print("%-9s %-7s %-10s %-5s %-12s %9.1f %9.1f %9.1f %7.1f%% %s %-4s  %s" % row)
        rows.append((d, row))
    return rows


def ratios(rows):
    best = {}
    for d, row in rows:
        if not d["verified"]:
            continue
        key = (row[0], row[2], row[3], row[4], d["model"])
        best[key] = max(best.get(key, 0), row[5])
    print("\nOpenCL / CUDA (best GFLOP/s of each)")
    for (suite, var, prec, lat, model), g in sorted(best.items()):
        if model == "opencl" and (suite, var, prec, lat, "cuda") in best:
            c = best[(suite, var, prec, lat, "cuda")]
            print("%-9s %-10s %-5s %-12s opencl %9.1f cuda %9.1f  ratio %.3f" % (suite, var, prec, lat, g, c, g / c))


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: bench/qcd_summary.py DIR")
    d = sys.argv[1]
    t = triad_bandwidth(documents(d + "/triad.json"))
    if not t:
        sys.exit("no verified triad in %s/triad.json" % d)
    triad = t[0]
    print("STREAM triad (%s, %s, %d elements): %.1f GB/s; Wilson roofline (Eq. 2, R = 0): fp32 %.1f GFLOP/s, "
          "fp64 %.1f; staggered (R = 0): fp32 %.1f, fp64 %.1f" % (
              t[3], t[2], t[1], triad / 1e9, triad * FLOPS / 1440 / 1e9, triad * FLOPS / 2880 / 1e9,
              triad * 1146 / 1560 / 1e9, triad * 1146 / 3120 / 1e9))
    for name, title in (("wilson", "Wilson Dslash"), ("staggered", "Staggered Dslash"), ("sweep", "Launch sweep")):
        docs = documents(d + "/" + name + ".json")
        if docs:
            ratios(table(docs, triad, title))


if __name__ == "__main__":
    main()
