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
HOST_DEFINES="-D__GNUC__=12 -D__x86_64__=1 -D_OPENMP=201511"

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
find kernels lib -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cl' \) | while read -r f; do
    mkdir -p "$root/$(dirname "$f")"
    sed 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*<.*//' "$f" >"$root/$f"
done
# The Makefile's generated headers: string macros and build switches no counted line depends on.
: >"$root/buildinfo.h"
: >"$root/models.h"

# preprocess LANG OPTS FILE...: the fingerprints of each file's unit (cpp run in the copy).
preprocess() {
    lang=$1 opts=$2
    shift 2
    for f in "$@"; do
        [ -f "$f" ] || { echo "linesets: no file $f" >&2; exit 1; }
        # shellcheck disable=SC2086 # the options are words
        (cd "$root" && cpp -dD -x "$lang" -undef -I. -D'PP_VARIANT_REGION(v)=PP_LINESET_##v' $opts "$f") |
            "$tool" "$root"
    done
}

# field SPEC KIND MODEL [NAME]: the rest of the spec's line "KIND MODEL [NAME] rest".
field() {
    awk -v k="$2" -v m="$3" -v n="${4-}" '$1 == k && $2 == m && (n == "" || $3 == n) {
        $1 = $2 = ""; if (n != "") $3 = ""; sub(/^ +/, ""); print }' "$1"
}

for spec in "$@"; do
    suite=$(basename "$(dirname "$spec")")
    common=$(awk '$1 == "common" { $1 = ""; print }' "$spec")
    grep -v '^[[:space:]]*\(#\|$\)' "$spec" | while read -r kind model rest; do
        case $kind in
        common | files | defines | precision) continue ;;
        variant) ;;
        *) echo "$spec: unknown line \"$kind\"" >&2; exit 1 ;;
        esac
        name=${rest%% *}
        builds=${rest#"$name"}
        files=$(field "$spec" files "$model")
        [ -n "$files" ] || { echo "$spec: no files for model $model" >&2; exit 1; }
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
                            preprocess "$lang" "$dopts $vopts $popts" $paths
                        done
                    done
                done
            } | sort -u | tr '\n' ' ' | sed 's/ $//; s/^/ /'
            echo
        done
    done
done
