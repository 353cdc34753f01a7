#!/usr/bin/env python3
"""Parse and summarise bench/host/stream_compare.sh's runs (see that script).

  stream_compare.py parse PROGRAM FILE   one line per kernel on stdout: kernel, GB/s (1e9 B/s), verified (1/0),
                                         array size, numtimes; PROGRAM is ppbench*, mccalpin or babelstream*
  stream_compare.py summary OUTDIR       OUTDIR/runs.tsv -> min/median/max GB/s per program and kernel, and the
                                         ratio of each ppbench form's median to each reference's median

Every program's figure is its best (minimum-time) rate over the iterations after the first, with the same byte
model: 2 arrays for copy and mul (McCalpin's Scale), 3 for add and triad; bytes / 1e9 per second.
"""
import json
import re
import statistics
import sys

KERNELS = ["copy", "mul", "add", "triad"]
# The byte model each program uses, in arrays of n elements: the summary checks each parsed rate against it.
ARRAYS = {"copy": 2, "mul": 2, "add": 3, "triad": 3}


def parse_ppbench(text):
    doc = json.JSONDecoder().raw_decode(text[text.index("{"):])[0]
    n = doc["problem"]["array_size"]
    beta = doc["problem"]["element_bytes"]
    rows = []
    for k in doc["kernels"]:
        if k["kernel"] not in KERNELS:
            continue
        assert abs(k["bytes"] - ARRAYS[k["kernel"]] * n * beta) < 0.5, "ppbench byte model"
        rows.append((k["kernel"], k["bandwidth_bytes_per_s"] / 1e9, int(bool(k["verified"])), n,
                     doc["problem"]["numtimes"]))
    return rows


def check_bytes(program, kernel, mbs, n, beta, tmin, resolution):
    """The rate a program printed is ARRAYS[kernel] * n * beta bytes over its minimum time, to 1 % beyond what the
    printed time's resolution (seconds) allows: its byte model is ppbench's."""
    want = ARRAYS[kernel] * n * beta / tmin / 1e6
    if abs(mbs / want - 1) > 0.01 + resolution / 2 / tmin:
        raise SystemExit("%s %s: %.1f MB/s is not %d arrays of %d x %d bytes in %g s (%.1f MB/s)" %
                         (program, kernel, mbs, ARRAYS[kernel], n, beta, tmin, want))


def parse_mccalpin(text):
    n = int(re.search(r"Array size = (\d+)", text).group(1))
    beta = int(re.search(r"uses (\d+) bytes per array element", text).group(1))
    times = int(re.search(r"executed (\d+) times", text).group(1))
    ok = int("Solution Validates" in text)
    names = {"Copy": "copy", "Scale": "mul", "Add": "add", "Triad": "triad"}
    rows = []
    # Function, best rate MB/s (1e6 B/s), average, minimum and maximum time
    for m in re.finditer(r"^(Copy|Scale|Add|Triad):\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)", text, re.M):
        k, mbs = names[m.group(1)], float(m.group(2))
        check_bytes("mccalpin", k, mbs, n, beta, float(m.group(4)), 1e-6)  # printed with 6 decimals
        rows.append((k, mbs / 1e3, ok, n, times))
    return rows


def parse_babelstream(text):
    ok = int("FAILED" not in text and "Validation failed" not in text)
    rows = []
    # --csv: function, num_times, n_elements, sizeof, max_MB_per_sec (1e6 B/s), min_runtime, ...
    for m in re.finditer(r"^(Copy|Mul|Add|Triad),(\d+),(\d+),(\d+),([\d.e+]+),([\d.e+-]+),", text, re.M):
        k, n, mbs = m.group(1).lower(), int(m.group(3)), float(m.group(5))
        tmin = float(m.group(6))
        check_bytes("babelstream", k, mbs, n, int(m.group(4)), tmin, tmin * 1e-5)  # 6 significant digits
        rows.append((k, mbs / 1e3, ok, n, int(m.group(2))))
    return rows


def parse(program, path):
    """path: the run's stdout; its stderr, where there is one, beside it as .err (BabelStream reports failed
    validation there)."""
    text = open(path, errors="replace").read()
    err = path[:-4] + ".err" if path.endswith(".txt") else None
    if err and not program.startswith("ppbench"):
        try:
            text += open(err, errors="replace").read()
        except OSError:
            pass
    if program.startswith("ppbench"):
        rows = parse_ppbench(text)
    elif program == "mccalpin":
        rows = parse_mccalpin(text)
    elif program.startswith("babelstream"):
        rows = parse_babelstream(text)
    else:
        raise SystemExit("unknown program " + program)
    if len(rows) != len(KERNELS):
        raise SystemExit("%s: %d of %d kernels in %s" % (program, len(rows), len(KERNELS), path))
    for r in rows:
        print("\t".join(str(x) for x in r))


def summary(outdir):
    runs = {}  # (program, kernel) -> [GB/s]
    thp = {}  # program -> [huge pages faulted in by each run]
    bad, sizes = [], set()
    order = []
    with open(outdir + "/runs.tsv") as f:
        header = f.readline().rstrip("\n").split("\t")
        for line in f:
            r = dict(zip(header, line.rstrip("\n").split("\t")))
            if r["program"] not in order:
                order.append(r["program"])
            runs.setdefault((r["program"], r["kernel"]), []).append(float(r["gbs"]))
            if r["kernel"] == KERNELS[0]:
                thp.setdefault(r["program"], []).append(int(r["thp_fault_alloc"]))
            sizes.add((r["array_size"], r["numtimes"]))
            if r["verified"] != "1":
                bad.append("round %s %s %s" % (r["round"], r["program"], r["kernel"]))
    out = []
    out.append("GB/s (1e9 bytes/s; copy, mul: 2 arrays; add, triad: 3), best rate of each run; "
               "min / median / max over the rounds")
    out.append("%-18s %-6s %5s %8s %8s %8s" % ("program", "kernel", "runs", "min", "median", "max"))
    thp_lines = ["", "transparent huge pages faulted in per run (median, MiB): " +
                 ", ".join("%s %d" % (p, 2 * statistics.median(thp[p])) for p in order if p in thp)]
    for p in order:
        for k in KERNELS:
            v = runs.get((p, k), [])
            if v:
                out.append("%-18s %-6s %5d %8.1f %8.1f %8.1f" % (p, k, len(v), min(v), statistics.median(v),
                                                                  max(v)))
    out += thp_lines
    refs = [p for p in order if not p.startswith("ppbench")]
    mine = [p for p in order if p.startswith("ppbench")]
    out.append("")
    out.append("ratio of medians (ppbench form / reference)")
    out.append("%-18s %-16s " % ("ppbench form", "reference") + " ".join("%7s" % k for k in KERNELS))
    for p in mine:
        for q in refs:
            cells = []
            for k in KERNELS:
                a, b = runs.get((p, k)), runs.get((q, k))
                cells.append("%7.3f" % (statistics.median(a) / statistics.median(b)) if a and b else "      -")
            out.append("%-18s %-16s " % (p, q) + " ".join(cells))
    if len(sizes) != 1:
        out.append("WARNING: the programs ran different array sizes or iteration counts: %s" % sorted(sizes))
    if bad:
        out.append("WARNING: not verified: " + "; ".join(bad))
    print("\n".join(out))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "parse":
        parse(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 3 and sys.argv[1] == "summary":
        summary(sys.argv[2])
    else:
        raise SystemExit(__doc__)
