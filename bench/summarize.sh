#!/usr/bin/env bash
# Summarise bench/gpu/stream.sh output (needs jq): one row per run and kernel with bandwidth, % of peak, and the
# ratio to the same-size d2d cudaMemcpy (GPU runs) measured in the same session.
#   bench/summarize.sh DIR
set -eu
DIR=${1:?usage: bench/summarize.sh DIR}
for f in "$DIR"/gpu.json "$DIR"/cpu.json "$DIR"/sweep.json; do
    [ -s "$f" ] || continue
    jq -rs '
      def pct(x): (x * 1000 | round) / 10;
      (map(select(.tool == "d2d")) | map({key: (.bytes | tostring), value: .bandwidth_bytes_per_s}) | from_entries) as $d2d
      | .[] | select(.suite == "stream")
      | . as $r
      | .kernels[]
      | [$r.platform.id, ($r.model + (if $r.provenance["env.PPBENCH_CUDA_VARIANT"] then "/" + $r.provenance["env.PPBENCH_CUDA_VARIANT"] else "" end)
           + (($r.provenance.launch // $r.variant).work_group_size as $wg | if $wg > 0 then "/wg" + ($wg | tostring) else "" end)
           + (if $r.provenance["env.PPBENCH_CUDA_DOT_BLOCKS_PER_SM"] then "/dotbps" + $r.provenance["env.PPBENCH_CUDA_DOT_BLOCKS_PER_SM"] else "" end)), $r.problem.precision, $r.problem.array_size, .kernel,
         ((.bandwidth_bytes_per_s / 1e9 * 10 | round) / 10),
         (if $r.platform.peak_bandwidth_bytes_per_s then pct(.bandwidth_bytes_per_s / $r.platform.peak_bandwidth_bytes_per_s) else "-" end),
         (($d2d[($r.problem.array_size * $r.problem.element_bytes | tostring)]) as $m | if $m then pct(.bandwidth_bytes_per_s / $m) else "-" end),
         (if .verified then "yes" else "NO" end)]
      | @tsv' "$f"
done | column -t -N PLATFORM,MODEL,PREC,N,KERNEL,GB/s,%PEAK,%D2D,VERIFIED

# OpenCL as a fraction of CUDA on the same GPU, same session, per size, precision and kernel.
if [ -s "$DIR/gpu.json" ]; then
    echo
    jq -rs '
      [ .[] | select(.suite == "stream" and .platform.kind == "gpu") | . as $r | .kernels[]
        | {k: "\($r.problem.precision) \($r.problem.array_size) \(.kernel)", m: $r.model, bw: .bandwidth_bytes_per_s} ]
      | group_by(.k)[]
      | (map(select(.m == "cuda"))[0].bw) as $c | (map(select(.m == "opencl"))[0].bw) as $o
      | select($c and $o) | "\(.[0].k)\t\((1000 * $o / $c | round) / 10)"' "$DIR/gpu.json" |
        column -t -N PREC,N,KERNEL,OPENCL%CUDA
fi
