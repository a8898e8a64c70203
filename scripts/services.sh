#!/usr/bin/env bash
# Throwaway PostgreSQL and Redis servers for the tests, kept in one folder:
#   eval "$(scripts/services.sh start DIR)"   # prints the export lines of BARBU_TEST_PG and BARBU_TEST_REDIS
#   scripts/services.sh stop DIR
# Both listen on 127.0.0.1 only, on free ports (or BARBU_PG_PORT / BARBU_REDIS_PORT), keep nothing
# worth keeping (PostgreSQL without fsync, Redis without persistence, with 64 databases for the tests'
# parallel workers) and trust every local client.
# PostgreSQL refuses to run as root: as root, its cluster belongs to the Debian user postgres.
set -euo pipefail

usage() { echo "usage: $0 start|stop DIR" >&2; exit 2; }
[ $# -eq 2 ] || usage
action="$1"
dir="$(mkdir -p "$2" && cd "$2" && pwd)"

pg_bin() {
  local bin
  bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
  [ -n "$bin" ] || { echo "services.sh: PostgreSQL is not installed (apt-get install postgresql)" >&2; exit 1; }
  echo "$bin"
}

as_pg() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start() {
  local bin pg_port redis_port
  bin="$(pg_bin)"
  command -v redis-server > /dev/null || { echo "services.sh: redis-server is not installed" >&2; exit 1; }
  pg_port="${BARBU_PG_PORT:-$(free_port)}"
  redis_port="${BARBU_REDIS_PORT:-$(free_port)}"
  mkdir -p "$dir/pg"
  chmod 755 "$dir"  # the postgres user goes through it to its own folder
  if [ "$(id -u)" -eq 0 ]; then chown postgres: "$dir/pg"; fi
  if [ ! -f "$dir/pg/PG_VERSION" ]; then
    # No locale: text sorts byte by byte, as SQLite sorts it.
    as_pg "$bin/initdb" -D "$dir/pg" -A trust -U postgres -E UTF8 --no-locale --no-sync > "$dir/initdb.log" 2>&1 \
      || { cat "$dir/initdb.log" >&2; exit 1; }
  fi
  as_pg "$bin/pg_ctl" -D "$dir/pg" -l "$dir/pg/server.log" -w -t 60 \
    -o "-p $pg_port -k '$dir/pg' -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300" \
    start > /dev/null || { cat "$dir/pg/server.log" >&2; exit 1; }
  echo "$pg_port" > "$dir/pg.port"
  redis-server --bind 127.0.0.1 --port "$redis_port" --save "" --appendonly no --databases 64 --daemonize yes \
    --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" --dir "$dir" > /dev/null
  for _ in $(seq 100); do
    if redis-cli -p "$redis_port" ping 2> /dev/null | grep -q PONG; then break; fi
    sleep 0.1
  done
  redis-cli -p "$redis_port" ping 2> /dev/null | grep -q PONG || { cat "$dir/redis.log" >&2; exit 1; }
  echo "export BARBU_TEST_PG=postgresql://postgres@127.0.0.1:$pg_port/postgres"
  echo "export BARBU_TEST_REDIS=redis://127.0.0.1:$redis_port/0"
}

stop() {
  if [ -f "$dir/pg/postmaster.pid" ]; then
    as_pg "$(pg_bin)/pg_ctl" -D "$dir/pg" -m fast -w stop > /dev/null || true
  fi
  if [ -f "$dir/redis.pid" ]; then
    kill "$(cat "$dir/redis.pid")" 2> /dev/null || true
    rm -f "$dir/redis.pid"
  fi
}

case "$action" in
  start) start ;;
  stop) stop ;;
  *) usage ;;
esac
