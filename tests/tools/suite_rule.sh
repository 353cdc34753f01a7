# The suites' plug-in rule (docs/ARCHITECTURE.md, "Suites are plug-ins"): adding a suite touches nothing
# outside kernels/<suite>/, its row in kernels/suites.c, its tests and docs. Checked as: no code outside
# kernels/<suite>/ and the table names the suite's files (kernels/<suite>/...) or its symbols: every identifier
# its headers declare with the suite's prefix (<suite>_*, pp_<suite>_*, PP_<SUITE>_*, <SUITE>_*) and its
# embedded OpenCL sources (pp_cl_<name> of kernels/<suite>/<name>.cl). Code is the C, CUDA and OpenCL files of
# kernels/, lib/, worker/, server/ and cli/ with their comments removed (the preprocessor's), and the
# Makefile without its comments; tests/, docs/ and bench/ may name any suite. A mutant tree (a model core that
# calls a driver, a Makefile line naming a suite's header) proves the check can fail.
. "$(dirname "$0")/../lib/check.sh"

# violations ROOT: one line "suite: file: text" per line of code outside a suite that names it.
violations() {
    local root=$1 code=$TMP/code.$$ s U syms re
    rm -rf "$code"
    mkdir -p "$code"
    (cd "$root" && find kernels lib worker server cli -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' \
        -o -name '*.cl' \) | sort) | while read -r f; do
        mkdir -p "$code/$(dirname "$f")"
        gcc -fpreprocessed -dD -E -P -x c "$root/$f" >"$code/$f" 2>/dev/null || cp "$root/$f" "$code/$f"
    done
    sed 's/#.*//' "$root/Makefile" >"$code/Makefile"
    for d in "$root"/kernels/*/; do
        s=$(basename "$d")
        [ -f "$d/suite.c" ] || continue
        U=$(printf '%s' "$s" | tr a-z A-Z)
        syms=$({ cat "$d"/*.h 2>/dev/null; for cl in "$d"/*.cl; do [ -f "$cl" ] && echo "pp_cl_$(basename "$cl" .cl)"; done; } |
            grep -oE "\b(${s}_[A-Za-z0-9_]+|pp_${s}_[A-Za-z0-9_]+|PP_${U}_[A-Za-z0-9_]+|${U}_[A-Za-z0-9_]+|pp_cl_${s}[A-Za-z0-9_]*)\b" |
            sort -u | tr '\n' '|')
        re="kernels/$s/|\\b(${syms%|})\\b"
        (cd "$code" && grep -rnoE "$re" --exclude-dir="$s" . | grep -v '^\./kernels/suites\.c:' |
            sed "s|^\./|$s: |")
    done
    rm -rf "$code"
}

out=$(violations .)
if [ -z "$out" ]; then
    pass "suite rule: no code outside kernels/<suite>/ and kernels/suites.c names a suite's files or symbols"
else
    fail "suite rule: code outside the suites names them" "$(printf '%s' "$out" | head -n 5 | tr '\n' ';')"
fi

# The mutants: the check must see a model core calling a driver and a Makefile naming a suite's header.
mkdir -p "$TMP/tree"
cp -r kernels lib worker server cli Makefile "$TMP/tree/"
printf '\nstatic void mutant(void) { (void)stream_run; }\n' >>"$TMP/tree/kernels/openmp/openmp.c"
printf '\nMUTANT = kernels/wilson/wilson_dslash.h\n' >>"$TMP/tree/Makefile"
out=$(violations "$TMP/tree")
if printf '%s\n' "$out" | grep -q '^stream: kernels/openmp/openmp.c:[0-9]*:stream_run$'; then
    pass "suite rule catches a model core calling a suite's driver (mutant)"
else
    fail "suite rule catches a model core calling a suite's driver (mutant)" "got: $(printf '%s' "$out" | tr '\n' ';')"
fi
if printf '%s\n' "$out" | grep -q '^wilson: Makefile:[0-9]*:kernels/wilson/$'; then
    pass "suite rule catches the Makefile naming a suite's file (mutant)"
else
    fail "suite rule catches the Makefile naming a suite's file (mutant)" "got: $(printf '%s' "$out" | tr '\n' ';')"
fi
# A comment may name a suite (the rule is about code).
printf '\n/* see kernels/cg/cg.c and cg_run */\n' >"$TMP/tree/kernels/openmp/openmp.c"
printf '' >"$TMP/tree/Makefile.tmp" && sed '/^MUTANT/d' "$TMP/tree/Makefile" >"$TMP/tree/Makefile.tmp" &&
    mv "$TMP/tree/Makefile.tmp" "$TMP/tree/Makefile"
same "suite rule: comments naming a suite are not code" "$(violations "$TMP/tree")" ""
