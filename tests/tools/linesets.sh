# Code divergence's line sets (scripts/linesets.sh, kernels/<suite>/linesets; docs/METHODOLOGY.md, "Code
# divergence") as the build embeds them ($BUILD/gen/linesets.txt): every suite of the catalogue has a set for
# every model in both precisions, named as results name their variants (the catalogue's variant parameters:
# each name's first part is a choice the model offers, and every such choice has a set); a variant is other
# code (its set differs from the model's other variants' unless the spec says "same"); and the script refuses
# the specs that would hide a mistake: two variants whose options select one code, a "same" whose sets
# differ, a file that does not exist. Mutant specs, in copies, prove each refusal.
. "$(dirname "$0")/../lib/check.sh"
SETS="$BUILD/gen/linesets.txt"
TOOL="$BUILD/tools/lineset"
[ -s "$SETS" ] && [ -x "$TOOL" ] || { skip "line sets" "$SETS or $TOOL not built"; exit 0; }

"$WORKER" suites --json >"$TMP/catalog.json"
# want: "suite model name" for each variant parameter's first choice list (what a result's name starts with)
jq -r '.models as $m | .suites[] | .name as $s | ([.params[] | select(.variant)][0]) as $p
    | $m[] as $model
    | if $p.name == "stores" and $model != "openmp" then "\($s) \($model) default"
      else ($p.choices[] as $c | select(($p.choice_models[$c] // $m) | index($model)) | "\($s) \($model) \($c)") end' \
    "$TMP/catalog.json" | sort -u |
    # omp-target takes these hacc variants so that a job records them, and refuses them at run time as
    # unsupported (kernels/suites.c): no code runs, so no set
    grep -Ev '^hacc omp-target (select|memory-32|memory-object)$' >"$TMP/want"
awk '{ split($3, n, "/"); print $1, $2, n[1] }' "$SETS" | sort -u >"$TMP/have"
missing=$(comm -23 "$TMP/want" "$TMP/have" | tr '\n' ';')
extra=$(comm -13 "$TMP/want" "$TMP/have" | tr '\n' ';')
[ -z "$missing$extra" ] && pass "line sets: every suite, model and variant of the catalogue ($(wc -l <"$TMP/want") names) has a set, and no other" ||
    fail "line sets: the sets and the catalogue's variants" "missing: $missing extra: $extra"
bad=$(awk '{ n[$1 " " $2 " " $3] = n[$1 " " $2 " " $3] " " $4 } END { for (k in n) if (n[k] != " fp32 fp64") print k ":" n[k] }' "$SETS")
[ -z "$bad" ] && pass "line sets: each in fp32 and fp64" || fail "line sets: each in both precisions" "$bad"

# Within a model, a set equal to another variant's is declared "same" in the spec (the script checks it at
# build time; this reads the embedded result).
dups=$(awk '{ k = $1 " " $2 " " $4; s = $0; sub(/^[^ ]+ [^ ]+ [^ ]+ [^ ]+/, "", s)
              if ((k, s) in seen) print $1, $2, seen[k, s], $3; else seen[k, s] = $3 }' "$SETS" | sort -u)
undeclared=$(printf '%s\n' "$dups" | while read -r s m a b; do
    [ -n "$s" ] || continue
    grep -Eq "^same $m( [^ ]+)* ($a( [^ ]+)* $b|$b( [^ ]+)* $a)( |$)" "kernels/$s/linesets" || echo "$s $m $a=$b"
done | tr '\n' ';')
[ -z "$undeclared" ] && pass "line sets: variants with one set are declared same ($(printf '%s\n' "$dups" | grep -c .) pairs)" ||
    fail "line sets: equal sets not declared same" "$undeclared"

# mutant SPEC-NAME SED-EXPRESSION: scripts/linesets.sh on a copy of kernels/<suite>/linesets edited so; its
# exit status and messages in $TMP/mutant.err
mutant() {
    mkdir -p "$TMP/m/$1"
    sed "$2" "kernels/$1/linesets" >"$TMP/m/$1/linesets"
    scripts/linesets.sh "$TOOL" "$TMP/m/$1/linesets" >/dev/null 2>"$TMP/mutant.err"
}
mutant stream 's/^variant openmp streaming .*/variant openmp streaming -DPP_LINESET_TEMPORAL=1/' &&
    fail "line sets: two variants of one code are refused" "exit 0" ||
    { grep -q "openmp variants temporal and streaming have the same line set" "$TMP/mutant.err" &&
        pass "line sets: two variants whose options select one code are refused (stream streaming as temporal)" ||
        fail "line sets: two variants of one code" "$(cat "$TMP/mutant.err")"; }
mutant wilson '/^same cuda /d' &&
    fail "line sets: an undeclared same code is refused" "exit 0" ||
    { grep -q "cuda variants aos and soa have the same line set" "$TMP/mutant.err" &&
        pass "line sets: equal sets without \"same\" are refused (wilson's cuda layouts)" ||
        fail "line sets: an undeclared same code" "$(cat "$TMP/mutant.err")"; }
mutant cg '$a same cuda native cusparse' &&
    fail "line sets: a wrong \"same\" is refused" "exit 0" ||
    { grep -q '"same cuda native cusparse" but their line sets differ' "$TMP/mutant.err" &&
        pass "line sets: a \"same\" whose sets differ is refused" || fail "line sets: a wrong same" "$(cat "$TMP/mutant.err")"; }
mutant staggered 's|kernels/staggered/staggered.cl|kernels/staggered/stag.cl|' &&
    fail "line sets: a spec naming a missing file is refused" "exit 0" ||
    { grep -q "no file kernels/staggered/stag.cl" "$TMP/mutant.err" &&
        pass "line sets: a spec naming a missing file is refused" || fail "line sets: a missing file" "$(cat "$TMP/mutant.err")"; }
