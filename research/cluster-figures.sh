#!/usr/bin/env bash
# The figures of a group of server processes on this machine (not a test): actions per second and
# delivery latency p50/p95/p99 with 1, 2 and 3 `barbu serve --bus` processes behind nginx, each run
# on a fresh PostgreSQL database, TABLES tables of four computer players, one watcher each, through
# nginx (so that most sockets of 2 or 3 processes are relayed to the table's owner).
#   research/cluster-figures.sh DIR [TABLES] [SECONDS]     # default 200 tables, 40 s a run
set -euo pipefail

[ $# -ge 1 ] || { echo "usage: $0 DIR [TABLES] [SECONDS]" >&2; exit 2; }
dir="$(mkdir -p "$1" && cd "$1" && pwd)"
tables="${2:-200}"
seconds="${3:-40}"
here="$(cd "$(dirname "$0")/.." && pwd)"
python="${BARBU_PYTHON:-$here/.venv/bin/python}"

eval "$("$here/scripts/services.sh" start "$dir/services")"
trap '"$here/scripts/services.sh" stop "$dir/services"' EXIT
export BARBU_BUS="$BARBU_TEST_REDIS"
export BARBU_SERVE_ARGS="--bot-delay 0 --tables-per-minute 100000 --max-open-tables 100000 \
--max-bot-tables 100000 --sockets-per-client 100000"
for n in 1 2 3; do
  name="figures_${n}_$$"
  "$python" - "$BARBU_TEST_PG" "$name" "$BARBU_BUS" <<'PY'
import sys

import psycopg
import redis

with psycopg.connect(sys.argv[1], autocommit=True) as db:
    db.execute(f'CREATE DATABASE "{sys.argv[2]}"')  # a name of ours
redis.Redis.from_url(sys.argv[3]).flushdb()
PY
  export BARBU_DB="${BARBU_TEST_PG%/*}/$name"
  "$here/scripts/cluster.sh" start "$dir/run-$n" "$n" 58300 > /dev/null
  echo "== $n process(es), $tables tables, $seconds s"
  "$python" "$here/scripts/loadtest.py" --url http://127.0.0.1:58300 --tables "$tables" --hands 28 \
    --seconds "$seconds" --level basic || true
  "$here/scripts/cluster.sh" stop "$dir/run-$n"
done
