#!/usr/bin/env bash
# Set up everything the tests need, then run lint, types and the test stages (docs/TESTING.md):
#   ./test.sh [--quick] [--coverage] [pytest args]
# The whole suite runs once on the mypyc-compiled engine, the browser suites against one `barbu serve`
# on SQLite; the tests marked `engine` run again on the pure-Python source; the web tests marked `stores`
# (their subject is the store or several processes) run again on PostgreSQL + Redis, the browser ones
# among them against two server processes behind nginx; the install matrix (tests/test_install_matrix.py,
# marker `install`) runs last. Each stage spreads its test files over pytest-xdist workers (the browser
# tests mostly wait, so more workers than cores); BARBU_TEST_WORKERS=N sets every stage's (0: one process).
#   --quick     lint, types and the compiled stage without the browser suites and the slow tests: the
#               loop while working (a few minutes); the full run is what CI runs.
#   --coverage  also measure what the stages cover of src/barbu (server processes included) and print
#               the report of src/barbu/web at the end.
# The pytest arguments narrow every stage (./test.sh -k foo, ./test.sh tests/test_cards.py).
set -euo pipefail
cd "$(dirname "$0")"
quick=0
coverage=0
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1; shift ;;
    --coverage) coverage=1; shift ;;
    *) break ;;
  esac
done
source scripts/venv.sh
ensure_venv "dev"
# The compiled engine is built (when its sources changed since the last build) beside lint and types.
build_log="$(mktemp)"
.venv/bin/python scripts/build-native.py > "$build_log" 2>&1 &
build_pid=$!
echo "== ruff"; .venv/bin/ruff check src tests scripts research
echo "== mypy --strict (engine and front ends)"; .venv/bin/mypy
if [ ! -x /usr/bin/chromium ]; then
  # The browser test drives Debian's chromium (Playwright never downloads a browser here).
  echo "== installing chromium for the browser test"
  apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium
fi
if ! command -v pdftoppm > /dev/null; then
  # The score keeper's browser test reads the PDF export (pdftotext) and pictures its first page.
  echo "== installing poppler-utils for the PDF export test"
  apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q poppler-utils
fi
if ! command -v fc-list > /dev/null || [ -z "$(fc-list :lang=my)" ] || [ -z "$(fc-list :lang=zh-cn)" ]; then
  # The pages in Burmese and Chinese are drawn with Noto Sans Myanmar (fonts-noto-core) and Noto Sans
  # CJK (fonts-noto-cjk): installed here, so that the browser test renders them without any fetch.
  echo "== installing the Noto fonts for the Burmese and Chinese pages"
  apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q fontconfig fonts-noto-core fonts-noto-cjk
fi
if ! command -v cc > /dev/null; then
  echo "== installing a C compiler for the compiled engine"
  apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q gcc
fi
if [ ! -f /usr/share/fonts/truetype/wqy/wqy-microhei.ttc ] || [ ! -f /usr/share/fonts/truetype/padauk/Padauk-Regular.ttf ]; then
  # The PDF export embeds TrueType fonts only (reportlab): WenQuanYi Micro Hei for Chinese and
  # Padauk for Burmese (Noto Sans CJK is CFF-based, Noto Sans Myanmar has no Latin letters).
  echo "== installing the TrueType fonts of the Chinese and Burmese PDF export"
  apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q fonts-wqy-microhei fonts-sil-padauk
fi
if ! ls /usr/lib/postgresql/*/bin/initdb > /dev/null 2>&1 || ! command -v redis-server > /dev/null \
    || ! command -v nginx > /dev/null; then
  # The PostgreSQL store, the event bus between server processes and the load balancer in front of them.
  echo "== installing PostgreSQL, Redis and nginx for the server tests"
  apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql redis-server nginx
fi
if [ "$quick" = 0 ] && { ! command -v node > /dev/null || ! command -v npm > /dev/null; }; then
  # Lighthouse (below) runs on Node.
  echo "== installing Node.js and npm for the Lighthouse test"
  apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q nodejs npm
fi
# Lighthouse, for tests/test_web_lighthouse_browser.py (a browser test: not in --quick): one pinned
# version in a cache folder outside the repository, installed once.
export BARBU_LIGHTHOUSE="${XDG_CACHE_HOME:-$HOME/.cache}/barbu/lighthouse-12.2.3"
if [ "$quick" = 0 ] && [ ! -f "$BARBU_LIGHTHOUSE/node_modules/lighthouse/cli/index.js" ]; then
  echo "== installing Lighthouse 12.2.3 into $BARBU_LIGHTHOUSE"
  mkdir -p "$BARBU_LIGHTHOUSE"
  npm install --prefix "$BARBU_LIGHTHOUSE" --no-audit --no-fund -E lighthouse@12.2.3
fi
# Pyodide, for tests/test_web_solo_browser.py (a browser test: not in --quick): the pinned release, fetched
# once with npm into the cache folder that `barbu static` and `barbu serve` read too (barbu/solo/pyodide.py).
if [ "$quick" = 0 ]; then
  echo "== Pyodide for the solo game in the browser (fetched once)"
  .venv/bin/python -m barbu.solo.pyodide
fi
echo "== compiled engine"
build_rc=0
wait "$build_pid" || build_rc=$?
cat "$build_log"; rm -f "$build_log"
[ "$build_rc" -eq 0 ] || exit "$build_rc"
# A throwaway PostgreSQL and Redis for this run, stopped however it ends; the tests that need them
# fail here (rather than skip, as they do without the services) when they cannot reach them.
services="$(mktemp -d)"
trap 'scripts/services.sh stop "$services"; rm -rf "$services"' EXIT
echo "== starting PostgreSQL and Redis for the tests"
exports="$(scripts/services.sh start "$services")"  # a failed start stops the run here
eval "$exports"
export BARBU_REQUIRE_SERVICES=1

# Whole files to a worker (--dist loadfile): a module's server and chromium serve all its tests.
parallel=(--dist loadfile --durations=10)
if [ "$coverage" = 1 ]; then
  rm -f .coverage .coverage.*
  # --cov-append: the stages add up; the servers the tests start are measured too (pyproject's
  # [tool.coverage.run] patch = subprocess).
  parallel+=(--cov=barbu --cov-append --cov-report=)
fi

# One stage on N workers (BARBU_TEST_WORKERS, when set, instead); "no tests collected" (exit code 5,
# e.g. -k matching nothing here) is not a failure.
stage() {
  local rc=0 workers="${BARBU_TEST_WORKERS:-$1}"
  shift
  SECONDS=0
  .venv/bin/python -m pytest -n "$workers" "${parallel[@]}" "$@" || rc=$?
  echo "   (stage took ${SECONDS} s)"
  if [ "$rc" -eq 5 ]; then return 0; fi
  return "$rc"
}

if [ "$quick" = 1 ]; then
  echo "== pytest, compiled engine, without the browser suites and the slow tests (--quick)"
  BARBU_EXPECT=compiled stage 4 -m "not browser and not slow and not install" "$@"
  exit 0
fi

echo "== pytest, compiled engine: every test (the browser suites on SQLite and one server process)"
# Less the leases' and takeovers' tests, which run next on their own: their seconds-long leases and
# sweeps must not be starved by four workers on two cores.
BARBU_EXPECT=compiled stage 4 -m "not install" --ignore=tests/test_web_bus.py --ignore=tests/test_web_cluster.py "$@"

echo "== pytest, compiled engine: the leases and the takeovers of a group of processes, alone"
BARBU_EXPECT=compiled stage 0 -m "not install" tests/test_web_bus.py tests/test_web_cluster.py "$@"

echo "== pytest, pure-Python engine: the tests of the engine itself (marker engine)"
# What the compiled modules are (barbu/engine, the bots' kernels): the rules, records, properties,
# playouts, tallies, the env's and vector's exactness and the bots, on the source mypyc compiles.
# Test by test (--dist worksteal: no module here starts a server, and test_vector's cases would keep one
# worker busy alone); test_vector's numba cases are skipped here (the numpy cases check the pure engine).
BARBU_PURE=1 BARBU_EXPECT=pure stage 2 --dist worksteal -m engine "$@"

echo "== pytest, the web tests of the store and of several processes (marker stores) on PostgreSQL + Redis"
# Those web tests a second time on the engines a big site runs: their tables, sheets and profiles in
# PostgreSQL; the browser ones against two `barbu serve --bus` processes behind nginx, so that a socket
# and the request beside it often reach different processes. (The PostgreSQL, bus and cluster tests
# themselves, and every test taking store_target on both stores, ran in the first stage.)
BARBU_TEST_DB=postgres BARBU_TEST_CLUSTER=1 BARBU_EXPECT=compiled stage 3 -m "stores and not install" \
  tests/test_web_*.py "$@"

# The install matrix: barbu installed afresh with each set of extras (slow, and alone on the machine).
if [ -f tests/test_install_matrix.py ]; then
  echo "== pytest, the install matrix (marker install)"
  # Two workers, test by test (one file): they share one wheelhouse, built by the first under a lock.
  BARBU_EXPECT=compiled stage 2 --dist load -m install tests/test_install_matrix.py "$@"
fi

if [ "$coverage" = 1 ]; then
  echo "== coverage of src/barbu/web (every stage above, server processes included)"
  .venv/bin/python -m coverage report --include='src/barbu/web/*' | tail -1
fi
