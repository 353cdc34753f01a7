# bench/qcd_summary.py on the stored H100 and host outputs (bench/results/2026-11-23-h100-qcd): every roofline is
# the compulsory traffic's at the triad of the same call (Wilson 192 F, staggered 300 F per output site), a share
# above it is marked ABOVE, and the papers' no-reuse lines appear only as a comparison; documents of builds
# before bytes_compulsory existed get it from the problem.
. "$(dirname "$0")/../lib/check.sh"

R=bench/results/2026-11-23-h100-qcd
python3 bench/qcd_summary.py "$R/wilson" >"$TMP/wilson.txt" 2>&1
python3 bench/qcd_summary.py "$R/host" >"$TMP/host.txt" 2>&1
mkdir -p "$TMP/stag"
cp "$R/wilson/triad.json" "$R/staggered/sweep.json" "$TMP/stag/"
python3 bench/qcd_summary.py "$TMP/stag" >"$TMP/stag.txt" 2>&1

# check NAME FILE REGEX: a line of FILE matches REGEX (egrep)
check() {
    if grep -Eq -- "$3" "$2"; then pass "$1"; else fail "$1" "no line matches /$3/: $(head -c 300 "$2" | tr '\n' ' ')"; fi
}
check "qcd_summary: Wilson ceilings at 3062.2 GB/s are 1320 flop per 768 B (fp32) and 1536 B (fp64)" "$TMP/wilson.txt" \
    'Ceilings, the compulsory traffic at this triad: Wilson fp32 5263\.2 GFLOP/s, fp64 2631\.6; staggered fp32 2924\.4, fp64 1462\.2'
check "qcd_summary: the R = 0 lines only for comparison" "$TMP/wilson.txt" \
    'no-reuse models, R = 0, for comparison only, not ceilings: Wilson 2807\.0 / 1403\.5'
check "qcd_summary: Wilson cuda soa fp32 at 79.1 % of its ceiling" "$TMP/wilson.txt" \
    '^wilson +cuda +soa +fp32 +32x32x32x32 +4164\.7 +2423\.1 +5263\.2 +79\.1% +4\.89 yes '
check "qcd_summary: Wilson cuda soa fp64 at 82.7 %" "$TMP/wilson.txt" '^wilson +cuda +soa +fp64 .* 2631\.6 +82\.7% '
check "qcd_summary: staggered 3lp-1 k wg768 cuda at 89.1 % of 1462.2" "$TMP/stag.txt" \
    '^staggered cuda +3lp-1/k +fp64 .* 1462\.2 +89\.1% .*wg768 '
check "qcd_summary: the host's staggered simd fp32 above its ceiling is marked" "$TMP/host.txt" \
    '^staggered openmp +simd +fp32 .* 136\.5% +- yes ABOVE'
if grep -Eq '1[45][0-9]\.[0-9]%' "$TMP/wilson.txt"; then
    fail "qcd_summary: no Wilson share against the R = 0 line" "$(grep -E '1[45][0-9]\.[0-9]%' "$TMP/wilson.txt" | head -n 1)"
else
    pass "qcd_summary: no Wilson share against the R = 0 line"
fi
