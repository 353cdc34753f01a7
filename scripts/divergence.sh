#!/bin/sh
# divergence.sh LINESETS PRECISION SUITE MODEL:VARIANT...: the line-set sizes of the named members and the code
# divergence of each pair of them (paper 003 Sec. 3.3: the Jaccard distance 1 - |a & b| / |a | b| of their
# line sets), from the build's $BUILD/gen/linesets.txt, as docs/METHODOLOGY.md's table of measured
# divergences was made.
set -eu
sets=$1 prec=$2 suite=$3
shift 3
awk -v prec="$prec" -v suite="$suite" -v members="$*" '
    BEGIN { n = split(members, m, " ") }
    $1 == suite && $4 == prec { for (i = 5; i <= NF; i++) in_set[$2 ":" $3, $i] = 1; size[$2 ":" $3] = NF - 4 }
    END {
        for (i = 1; i <= n; i++) {
            if (!(m[i] in size)) { print "divergence: no line set " suite " " m[i] " " prec > "/dev/stderr"; exit 1 }
            printf "%s %s %s: %d lines\n", suite, m[i], prec, size[m[i]]
        }
        for (i = 1; i <= n; i++)
            for (j = i + 1; j <= n; j++) {
                both = 0
                for (k in in_set) { split(k, p, SUBSEP); if (p[1] == m[i] && ((m[j], p[2]) in in_set)) both++ }
                printf "%s %s - %s: %.2f (%d shared)\n", suite, m[i], m[j], 1 - both / (size[m[i]] + size[m[j]] - both), both
            }
    }' "$sets"
