#!/usr/bin/env bash
# A group of `barbu serve --bus` processes behind nginx on this machine, for a try by hand and for
# the figures (research/cluster-figures.sh):
#   scripts/cluster.sh start DIR [N] [PORT]   # N processes (default 2), nginx on PORT (default 8080)
#   scripts/cluster.sh stop DIR
# The processes listen on PORT+1 … PORT+N. Their database and bus are $BARBU_DB and $BARBU_BUS when
# set; otherwise a throwaway PostgreSQL and Redis are started in DIR/services (scripts/services.sh)
# and stopped with the group. $BARBU_SERVE_ARGS goes to every process (say, "--bot-delay 0").
# Everything the group writes (logs, pid files, nginx's files) stays in DIR.
set -euo pipefail

usage() { echo "usage: $0 start DIR [N] [PORT] | stop DIR" >&2; exit 2; }
[ $# -ge 2 ] || usage
action="$1"
dir="$(mkdir -p "$2" && cd "$2" && pwd)"
here="$(cd "$(dirname "$0")/.." && pwd)"
python="${BARBU_PYTHON:-$here/.venv/bin/python}"

wait_up() {
  for _ in $(seq 300); do
    if curl -fsS -o /dev/null "$1/api/info" 2> /dev/null; then return 0; fi
    sleep 0.1
  done
  echo "cluster.sh: nothing answers at $1 (see $dir/*.log)" >&2
  return 1
}

start() {
  local n="${1:-2}" port="${2:-8080}" db bus i ports=() exports
  # Whatever fails from here on (a service, a process, nginx), what was started is stopped.
  trap 'echo "cluster.sh: the start failed; stopping what was started" >&2; stop' ERR
  if [ -z "${BARBU_DB:-}" ] || [ -z "${BARBU_BUS:-}" ]; then
    # Captured first: inside eval "$(...)" a failed start would go unnoticed.
    exports="$("$here/scripts/services.sh" start "$dir/services")"
    eval "$exports"
    db="${BARBU_DB:-${BARBU_TEST_PG%/*}/barbu}"
    bus="${BARBU_BUS:-$BARBU_TEST_REDIS}"
    "$python" - "$BARBU_TEST_PG" <<'EOF'
import sys

import psycopg

with psycopg.connect(sys.argv[1], autocommit=True) as db:
    if db.execute("SELECT 1 FROM pg_database WHERE datname = 'barbu'").fetchone() is None:
        db.execute("CREATE DATABASE barbu")
EOF
  else
    db="$BARBU_DB"
    bus="$BARBU_BUS"
  fi
  for i in $(seq "$n"); do
    ports+=("$((port + i))")
    # One after another: the first one brings the database's layout up to date alone. nginx, on this
    # machine, says each client's address (its own peer's) in X-Forwarded-For.
    # shellcheck disable=SC2086 # BARBU_SERVE_ARGS is a list of words
    "$python" -m barbu.cli serve --port "$((port + i))" --db "$db" --bus "$bus" \
      --forwarded-allow-ips 127.0.0.1 ${BARBU_SERVE_ARGS:-} \
      > "$dir/serve-$i.log" 2>&1 &
    echo $! > "$dir/serve-$i.pid"
    wait_up "http://127.0.0.1:$((port + i))"
  done
  mkdir -p "$dir/nginx"
  local servers=""
  for p in "${ports[@]}"; do servers+="        server 127.0.0.1:$p;\n"; done
  # deploy/nginx.conf with our ports and our folder: the same file a site would use.
  sed -e "/^        server 127.0.0.1:[0-9]*;$/d" \
      -e "s|^\(    upstream barbu {\)$|\1\n$servers|" \
      -e "s|listen 127.0.0.1:[0-9]*;|listen 127.0.0.1:$port;|" \
      -e "s|/var/log/nginx/barbu-|$dir/nginx/|; s|/run/barbu-nginx.pid|$dir/nginx/nginx.pid|" \
      -e "s|/var/lib/nginx/barbu|$dir/nginx|" \
      "$here/deploy/nginx.conf" > "$dir/nginx/nginx.conf"
  nginx -p "$dir/nginx" -c "$dir/nginx/nginx.conf"
  wait_up "http://127.0.0.1:$port"
  trap - ERR
  echo "barbu: $n processes on $db, bus $bus; open http://127.0.0.1:$port/"
}

stop() {
  if [ -f "$dir/nginx/nginx.pid" ]; then
    kill "$(cat "$dir/nginx/nginx.pid")" 2> /dev/null || true
  fi
  for pidfile in "$dir"/serve-*.pid; do
    [ -f "$pidfile" ] || continue
    kill "$(cat "$pidfile")" 2> /dev/null || true
    rm -f "$pidfile"
  done
  sleep 1
  if [ -d "$dir/services" ]; then "$here/scripts/services.sh" stop "$dir/services"; fi
}

case "$action" in
  start) shift 2; start "$@" ;;
  stop) stop ;;
  *) usage ;;
esac
