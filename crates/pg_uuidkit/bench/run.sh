#!/usr/bin/env bash
# pg_uuidkit against PostgreSQL's own generators, in one run on one server:
#   1. `SELECT f()` as a client statement (pgbench, one connection, -T seconds each);
#   2. f() alone: `SELECT count(f()) FROM generate_series(1, 1000000)`;
#   3. `INSERT` of 1,000,000 rows keyed by f() into a table with a uuid primary key.
# Rounds alternate the functions so that drift on the machine hits them alike; the table
# gives the median of the rounds.
#
# Usage (as root, after scripts/setup; installs the release build of the extension into
# Debian's PostgreSQL 15):
#   bash crates/pg_uuidkit/bench/run.sh [ROUNDS] [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=${1:-3}
seconds=${2:-10}
bin=/usr/lib/postgresql/15/bin
port=55432

cargo pgrx install --release --pg-config "$bin/pg_config" >/dev/null

dir=$(mktemp -d)
chown postgres: "$dir"
as_pg() { runuser -u postgres -- "$@"; }
as_pg "$bin/initdb" -D "$dir/data" -A trust -U postgres >/dev/null
as_pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w \
    -o "-p $port -k $dir -c listen_addresses='' -c shared_buffers=512MB -c max_wal_size=4GB" \
    start >/dev/null
trap 'as_pg "$bin/pg_ctl" -D "$dir/data" -m fast stop >/dev/null; rm -rf "$dir"' EXIT

psql_() { as_pg psql -X -q -h "$dir" -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1 "$@"; }
psql_ -c 'CREATE EXTENSION pg_uuidkit' -c 'CREATE EXTENSION "uuid-ossp"' \
    -c 'CREATE TABLE keys (id uuid PRIMARY KEY)'

functions=(uuidkit_v7 gen_random_uuid uuid_generate_v4 uuidkit_v4)
declare -A select_tps call_ms insert_ms

# One pgbench run of `sql` (-T seconds or -t N); prints tps or the average latency in ms.
bench() {
    local what=$1 sql=$2
    shift 2
    printf '%s\n' "$sql" >"$dir/script.sql"
    chown postgres: "$dir/script.sql"
    local out
    out=$(as_pg pgbench -n -h "$dir" -p "$port" -U postgres -f "$dir/script.sql" "$@" postgres)
    case $what in
    tps) sed -n 's/^tps = \([0-9.]*\).*/\1/p' <<<"$out" ;;
    ms) sed -n 's/^latency average = \([0-9.]*\) ms/\1/p' <<<"$out" ;;
    esac
}

median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

for ((r = 1; r <= rounds; r++)); do
    for f in "${functions[@]}"; do
        select_tps[$f]+="$(bench tps "SELECT $f();" -T "$seconds") "
        call_ms[$f]+="$(bench ms "SELECT count($f()) FROM generate_series(1, 1000000);" -t 3) "
        psql_ -c 'TRUNCATE keys' -c 'CHECKPOINT'
        insert_ms[$f]+="$(bench ms "INSERT INTO keys SELECT $f() FROM generate_series(1, 1000000);" -t 1) "
        psql_ -c 'TRUNCATE keys'
    done
    echo "round $r of $rounds done" >&2
done

echo "| function | \`SELECT f()\` (tps, 1 connection) | 1 M calls (\`count(f())\`) | \`INSERT\` 1 M rows keyed by f() |"
echo "|---|---|---|---|"
for f in "${functions[@]}"; do
    # shellcheck disable=SC2086
    printf '| `%s()` | %.0f | %.1f ms | %.0f ms |\n' "$f" \
        "$(median ${select_tps[$f]})" "$(median ${call_ms[$f]})" "$(median ${insert_ms[$f]})"
done
