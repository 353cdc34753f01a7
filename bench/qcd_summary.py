#!/usr/bin/env python3
"""Summarise the lattice QCD benchmarks (bench/gpu/wilson.sh, bench/gpu/staggered.sh, bench/host/qcd.sh) against
the roofline of the compulsory traffic at the STREAM triad measured in the same call.

    bench/qcd_summary.py DIR

Reads DIR/triad.json (the STREAM triad of the same call: the best verified one in it) and DIR/wilson.json,
DIR/staggered.json and DIR/sweep.json where present: streams of the worker's JSON documents.
For every run the ceiling is the triad bandwidth times the suite's flop per compulsory byte (each input read
once, each output written once: the worker's `bytes_compulsory`; Wilson paper 000 Eq. 2 with R = 7, 192 F per
output site, 1320 flop; staggered each of the 16 links, the input vector and the output once, 300 F, 1146 flop;
docs/METHODOLOGY.md), and it prints GFLOP/s, the bandwidth the compulsory traffic implies, the ceiling and the
run's share of it. No correct run exceeds its ceiling: a share above 100 % is marked ABOVE (the measurement or
the triad is wrong). For Wilson also the reuse R that the figure implies: the bytes per site that the triad
bandwidth moves in the time of one site's 1320 flop, read as Eq. 2 with r = 0, (8 x 18 + 24 (8 - R) + 24) F,
solved for R (r = 1, a read for ownership of the output, adds 1 to R); R = 7 is the ceiling. The papers'
no-reuse byte models (R = 0: Wilson 360 F, staggered 390 F per site) are upper bounds on traffic, not ceilings;
the header gives their lines for comparison with the papers only. Then OpenCL as a fraction of CUDA per
variant and precision. Every figure comes from the worker's timing rule (Wilson the fastest sample, staggered
the mean); a run that failed verification is marked and left out of the ratios.
"""
import json
import sys

FLOPS = 1320
# reals per output site: the compulsory traffic (the ceilings) and the papers' no-reuse models (for comparison)
COMPULSORY_REALS = {"wilson": 192, "staggered": 300}
PAPER_REALS = {"wilson": 360, "staggered": 390}
FLOPS_PER_SITE = {"wilson": 1320, "staggered": 1146}


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


def compulsory_bytes(d, k):
    """The compulsory bytes per application the worker stored; computed from the problem for documents of
    builds before it stored them."""
    if k.get("bytes_compulsory"):
        return k["bytes_compulsory"]
    p = d["problem"]
    return COMPULSORY_REALS[d["suite"]] * p["element_bytes"] * p["output_sites"]


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
    print("%-9s %-7s %-10s %-5s %-12s %9s %9s %9s %8s %7s %-9s  %s" % (
        "suite", "model", "variant", "prec", "lattice", "GFLOP/s", "cGB/s", "ceilGF/s", "%ceil", "R", "ok", "launch"))
    for d in docs:
        if d.get("suite") not in ("wilson", "staggered"):
            continue
        p, k = d["problem"], d["kernels"][0]
        elem = p["element_bytes"]
        cbytes = compulsory_bytes(d, k)
        ceiling = triad * k["flops"] / cbytes / 1e9
        share = 100 * k["gflops"] / ceiling
        r = "%7.2f" % implied_reuse(k["gflops"], triad, elem) if d["suite"] == "wilson" else "%7s" % "-"
        lat = "x".join(str(x) for x in p["lattice"])
        it = " it%d" % p["iterations"] + (" runs%d %s" % (p["runs"], p["timing"]) if d["suite"] == "staggered" else "")
        ok = ("yes" if d["verified"] else "NO") + (" ABOVE" if share > 100 else "")
        row = (d["suite"], d["model"], variant(d), p["precision"], lat, k["gflops"],
               k["gflops"] * cbytes / k["flops"], ceiling, share, r, ok, knobs(d) + it)
        print("%-9s %-7s %-10s %-5s %-12s %9.1f %9.1f %9.1f %7.1f%% %s %-9s  %s" % row)
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

    def line(reals, suite, elem):
        return triad * FLOPS_PER_SITE[suite] / (reals[suite] * elem) / 1e9

    print("STREAM triad (%s, %s, %d elements, same call): %.1f GB/s. Ceilings, the compulsory traffic at this triad: "
          "Wilson fp32 %.1f GFLOP/s, fp64 %.1f; staggered fp32 %.1f, fp64 %.1f. (The papers' no-reuse models, R = 0, "
          "for comparison only, not ceilings: Wilson %.1f / %.1f, staggered %.1f / %.1f.)" % (
              t[3], t[2], t[1], triad / 1e9, line(COMPULSORY_REALS, "wilson", 4), line(COMPULSORY_REALS, "wilson", 8),
              line(COMPULSORY_REALS, "staggered", 4), line(COMPULSORY_REALS, "staggered", 8),
              line(PAPER_REALS, "wilson", 4), line(PAPER_REALS, "wilson", 8), line(PAPER_REALS, "staggered", 4),
              line(PAPER_REALS, "staggered", 8)))
    for name, title in (("wilson", "Wilson Dslash"), ("staggered", "Staggered Dslash"), ("sweep", "Launch sweep")):
        docs = documents(d + "/" + name + ".json")
        if docs:
            ratios(table(docs, triad, title))


if __name__ == "__main__":
    main()
