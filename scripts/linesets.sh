#!/bin/sh
# linesets.sh LINESET-TOOL SPEC...: the line sets of code divergence (docs/METHODOLOGY.md, "Code divergence"),
# one line per suite, model and variant: "suite model variant fingerprint...", the fingerprints (tools/lineset.c)
# of the source lines the preprocessor keeps when it builds the model's files of the suite for that variant.
# Each SPEC is kernels/<suite>/linesets (its format is in the hacc one). #include lines are blanked before
# cpp runs: a suite's own lines are what is counted, and CUDA's or OpenCL's headers need not be installed.
# The Makefile runs it at build time; ppbenchd embeds the output.
set -eu
tool=$1
shift
for spec in "$@"; do
    suite=$(basename "$(dirname "$spec")")
    grep -v '^[[:space:]]*\(#\|$\)' "$spec" | while read -r kind model rest; do
        case $kind in
        files) continue ;;
        variant) ;;
        *) echo "$spec: unknown line \"$kind\"" >&2; exit 1 ;;
        esac
        name=${rest%% *}
        builds=${rest#"$name"}
        files=$(awk -v m="$model" '$1 == "files" && $2 == m { $1 = $2 = ""; print }' "$spec")
        [ -n "$files" ] || { echo "$spec: no files for model $model" >&2; exit 1; }
        printf '%s %s %s' "$suite" "$model" "$name"
        echo "$builds" | tr '|' '\n' | while read -r opts; do
            echo "$files" | while read -r lang paths; do
                for f in $paths; do
                    # shellcheck disable=SC2086 # the options are words
                    sed 's/^[[:space:]]*#[[:space:]]*include.*//' "$f" |
                        cpp -dD -x "$lang" -undef -D'PP_VARIANT_REGION(v)=PP_LINESET_##v' $opts - |
                        "$tool" "$f"
                done
            done
        done | sort -u | tr '\n' ' ' | sed 's/ $//; s/^/ /'
        echo
    done
done
