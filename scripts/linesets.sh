#!/bin/sh
# linesets.sh LINESET-TOOL SPEC...: the line sets of code divergence (docs/METHODOLOGY.md, "Code divergence"),
# one line per suite, model, variant and precision: "suite model variant precision fingerprint...", the
# fingerprints (tools/lineset.c) of the source lines the preprocessor keeps when the application is built for
# that model, variant and precision: the suite's driver and plug-in (its "common" files, built as the worker is),
# the model's core and the suite's model files (its "files"), each with every project header it includes. Each
# SPEC is kernels/<suite>/linesets (its format is in the hacc one). cpp runs in a copy of kernels/ and lib/
# whose system #include lines (<...>) are blanked: the project's own lines are what is counted, and CUDA's or
# OpenCL's headers need not be installed; the macros those headers or the compilers would predefine and that
# the code tests (_OPENMP, __CUDACC__, __clang__, ...) come from the spec's "defines". The Makefile runs it at
# build time; ppbenchd embeds the output.
set -eu
tool=$1
shift
# The worker's own build (gcc, C11, -fopenmp, x86-64): how the common files are preprocessed.
HOST_DEFINES="-D__GNUC__=12 -D__x86_64__=1 -D__SSE2__=1 -D_OPENMP=201511"
# An OpenCL program (a "cl" unit): what every OpenCL C compiler predefines. A program gets the precision's
# options and the variant's (the program options its host passes), never the host compiler's macros.
OPENCL_DEFINES="-D__OPENCL_VERSION__=300 -D__OPENCL_C_VERSION__=300"

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
find kernels lib -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cl' \) | while read -r f; do
    mkdir -p "$root/$(dirname "$f")"
    sed 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*<.*//' "$f" >"$root/$f"
done
# The Makefile's generated headers: string macros and build switches no counted line depends on.
: >"$root/buildinfo.h"
: >"$root/models.h"

# preprocess LANG OPTS FILE...: the fingerprints of each file's unit (cpp run in the copy); LANG c, c++ or cl
# (OpenCL C, preprocessed as C).
preprocess() {
    lang=$1 opts=$2
    shift 2
    [ "$lang" != cl ] || lang=c
    for f in "$@"; do
        [ -f "$f" ] || fail "no file $f"
        # shellcheck disable=SC2086 # the options are words
        (cd "$root" && cpp -dD -x "$lang" -undef -I. -D'PP_VARIANT_REGION(v)=PP_LINESET_##v' $opts "$f") \
            >"$root/unit.i" || fail "cpp $opts $f failed"
        "$tool" "$root" <"$root/unit.i" || fail "lineset $f failed"
    done
}

# fail MESSAGE: say it and mark the run failed (the loops below run in pipelines' subshells, where exit would
# end only the subshell; the script's end checks the mark).
fail() {
    echo "linesets: $1" >&2
    : >"$root/failed"
    exit 1
}

# field SPEC KIND MODEL [NAME]: the rest of the spec's line "KIND MODEL [NAME] rest".
field() {
    awk -v k="$2" -v m="$3" -v n="${4-}" '$1 == k && $2 == m && (n == "" || $3 == n) {
        $1 = $2 = ""; if (n != "") $3 = ""; sub(/^ +/, ""); print }' "$1"
}

for spec in "$@"; do
    suite=$(basename "$(dirname "$spec")")
    # every file the spec names exists (a renamed file must not shrink a line set unnoticed)
    awk '$1 == "common" { for (i = 3; i <= NF; i++) print $i } $1 == "files" { for (i = 4; i <= NF; i++) print $i }' \
        "$spec" | while read -r f; do [ -f "$f" ] || fail "$spec: no file $f"; done
    common=$(awk '$1 == "common" { $1 = ""; print }' "$spec")
    grep -v '^[[:space:]]*\(#\|$\)' "$spec" | while read -r kind model rest; do
        case $kind in
        common | files | defines | precision | same) continue ;;
        variant) ;;
        *) fail "$spec: unknown line \"$kind\"" ;;
        esac
        name=${rest%% *}
        builds=${rest#"$name"}
        files=$(field "$spec" files "$model")
        [ -n "$files" ] || fail "$spec: no files for model $model"
        defines=$(field "$spec" defines "$model")
        for prec in fp32 fp64; do
            popts=$(field "$spec" precision "$model" "$prec")
            printf '%s %s %s %s' "$suite" "$model" "$name" "$prec"
            {
                echo "$common" | while read -r lang paths; do
                    [ -z "$lang" ] || preprocess "$lang" "$HOST_DEFINES" $paths
                done
                echo "${defines:-}" | tr '|' '\n' | while read -r dopts; do
                    echo "$builds" | tr '|' '\n' | while read -r vopts; do
                        echo "$files" | while read -r lang paths; do
                            if [ "$lang" = cl ]; then
                                preprocess cl "$OPENCL_DEFINES $vopts $popts" $paths
                            else
                                preprocess "$lang" "$dopts $vopts" $paths
                            fi
                        done
                    done
                done
            } | sort -u | tr '\n' ' ' | sed 's/ $//; s/^/ /'
            echo
        done
    done
done >"$root/out"
[ ! -e "$root/failed" ] || exit 1

# A variant is other code: two variants of one model whose line sets are equal (in a precision) are one code
# under two names, which a spec must say with "same MODEL NAME NAME..."; a "same" whose sets differ is wrong.
for spec in "$@"; do
    suite=$(basename "$(dirname "$spec")")
    awk -v suite="$suite" -v spec="$spec" '
        FNR == NR {
            if ($1 == "same")
                for (i = 3; i <= NF; i++)
                    for (j = i + 1; j <= NF; j++) same[$2 " " $i " " $j] = same[$2 " " $j " " $i] = 1
            next
        }
        $1 != suite { next }
        {
            set = $0
            sub(/^[^ ]+ [^ ]+ [^ ]+ [^ ]+/, "", set)
            k = $2 " " $4 SUBSEP set
            n = split(names[k], earlier, " ")
            for (i = 1; i <= n; i++) {
                a = earlier[i]
                ok[$2 " " a " " $3] = ok[$2 " " $3 " " a] = 1
                if (!(($2 " " a " " $3) in same)) {
                    printf "linesets: %s: %s variants %s and %s have the same line set in %s; if they are one code, say so with \"same %s %s %s\"\n", spec, $2, a, $3, $4, $2, a, $3 > "/dev/stderr"
                    bad = 1
                }
            }
            names[k] = names[k] " " $3
        }
        END {
            for (p in same)
                if (!(p in ok)) {
                    printf "linesets: %s: \"same %s\" but their line sets differ\n", spec, p > "/dev/stderr"
                    bad = 1
                }
            exit bad
        }' "$spec" "$root/out" || exit 1
done
cat "$root/out"
