#!/usr/bin/env bash
# The schema as current definitions (issue 23): migrations hold tables, indexes and data changes only; the
# functions, views and triggers are one current definition each in schema/functions/, applied whole by
# `ppbenchd migrate` (server/migrate.c). An installation at any earlier migration, made by the files as they were
# before the split (git history), upgrades to the same catalogue (pg_dump --schema-only) as a fresh one, and its
# rows stay. Needs git history with the last commit before the split; a shallow clone skips those checks.
source "$(dirname "$0")/../lib/check.sh"
source "$(dirname "$0")/../lib/pg.sh"
SERVER="$BUILD/bin/ppbenchd"
BEFORE=785c38e # main before the split: schema/ held every function's history

# The rule: no migration defines code.
bad=$(grep -lEi '^\s*create\s+(or\s+replace\s+)?(function|view|trigger|type|procedure|aggregate)\b' schema/[0-9]*.sql)
same "schema migrations define no function, view or trigger" "$bad" ""

# The run's cluster (or one of the test's own), databases named after this test's pid.
chmod 755 "$TMP"
if ! pg_shared "$TMP/pg" >"$TMP/pg.log" 2>&1; then
    fail "schema postgresql" "$(tail -n 3 "$TMP/pg.log" | tr '\n' ' ')"
    exit 0
fi
trap 'pg_stop_all; rm -rf "$TMP"' EXIT
F=t$$_fresh

url() { echo "host=$PGHOST port=$PGPORT dbname=$1 user=$PGUSER"; }
migrate() { "$SERVER" --database "$(url "$1")" migrate >"$TMP/migrate.$1.log" 2>&1; }
catalogue() { pg_dump --schema-only --no-owner -d "$1" | grep -Ev '^(--|\\(un)?restrict )'; }

createdb "$F" && migrate "$F"
catalogue "$F" >"$TMP/fresh.sql"
n=$(grep -c '^CREATE FUNCTION' "$TMP/fresh.sql")
if [ "$n" -gt 40 ]; then pass "schema fresh install has the functions ($n)"; else fail "schema fresh install" "$n functions"; fi

# Nothing pending, the same functions: nothing is applied again.
migrate "$F"
if grep -q 'migrate:' "$TMP/migrate.$F.log"; then
    fail "schema second migrate is a no-op" "$(tr '\n' ' ' <"$TMP/migrate.$F.log")"
else
    pass "schema second migrate is a no-op"
fi
# Other functions held (an older build's): they are applied again, to the same catalogue.
psql -q -d "$F" -c "UPDATE schema_functions SET hash = 'older'"
migrate "$F"
if grep -q 'held older' "$TMP/migrate.$F.log" && diff -q <(catalogue "$F") "$TMP/fresh.sql" >/dev/null; then
    pass "schema changed functions are applied again"
else
    fail "schema changed functions are applied again" "$(tr '\n' ' ' <"$TMP/migrate.$F.log")"
fi

if ! git cat-file -e "$BEFORE^{commit}" 2>/dev/null; then
    skip "schema upgrades from earlier migrations" "no git history with $BEFORE (a shallow clone)"
    exit 0
fi
levels=$(git ls-tree --name-only "$BEFORE" schema/ | grep -E '/[0-9]{3}_.*\.sql$' | sort)
failed="" checked=0
for last in $levels; do
    db="t$$_up_$(basename "$last" .sql)"
    createdb "$db"
    # as the old ppbenchd applied them: each file in its own transaction, recorded
    for f in $levels; do
        echo 'BEGIN;'; git show "$BEFORE:$f"; echo ';'
        echo "INSERT INTO schema_migrations (name) VALUES ('$(basename "$f")'); COMMIT;"
        [ "$f" = "$last" ] && break
    done | { echo 'CREATE TABLE schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now());'; cat; } |
        psql -q -v ON_ERROR_STOP=1 -d "$db" >/dev/null 2>"$TMP/old.err" || failed="$failed $db(old: $(head -c 200 "$TMP/old.err"))"
    psql -q -d "$db" -c "INSERT INTO hosts (name) VALUES ('kept-$db')" 2>/dev/null
    if ! migrate "$db"; then
        failed="$failed $db($(grep -m 1 "ppbenchd:" "$TMP/migrate.$db.log"))"
    elif ! diff "$TMP/fresh.sql" <(catalogue "$db") >"$TMP/diff.$db"; then
        failed="$failed $db(catalogue: $(grep -m 2 '^[<>]' "$TMP/diff.$db" | tr '\n' ' '))"
    elif [ "$(psql -Atq -d "$db" -c "SELECT count(*) FROM hosts WHERE name = 'kept-$db'")" != 1 ]; then
        failed="$failed $db(rows lost)"
    fi
    checked=$((checked + 1))
done
same "schema every earlier migration ($checked) upgrades to the fresh catalogue, rows kept" "${failed# }" ""
