#!/usr/bin/env bash
# Set up everything the tests need, then run lint, types and every test: ./test.sh [pytest args]
# The whole suite runs on the mypyc-compiled engine; what tests the engine itself runs again on the
# pure-Python source (the browser and server suites test no more of the engine the second time); the
# web suites run again on PostgreSQL + Redis with two server processes.
set -euo pipefail
cd "$(dirname "$0")"
source scripts/venv.sh
ensure_venv "dev"
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
echo "== compiled engine"; .venv/bin/python scripts/build-native.py
# A throwaway PostgreSQL and Redis for this run, stopped however it ends; the tests that need them
# fail here (rather than skip, as they do without the services) when they cannot reach them.
services="$(mktemp -d)"
trap 'scripts/services.sh stop "$services"; rm -rf "$services"' EXIT
echo "== starting PostgreSQL and Redis for the tests"
exports="$(scripts/services.sh start "$services")"  # a failed start stops the run here
eval "$exports"
export BARBU_REQUIRE_SERVICES=1
echo "== pytest, compiled engine"; BARBU_EXPECT=compiled .venv/bin/python -m pytest "$@"
echo "== pytest, pure-Python engine (without the browser and server suites)"
BARBU_PURE=1 BARBU_EXPECT=pure .venv/bin/python -m pytest --ignore-glob="tests/test_web_*" "$@"
echo "== pytest, the web suites on PostgreSQL + Redis, the browser ones on two server processes behind nginx"
# The same tests a second time on the engines a big site runs: every table, sheet and profile in
# PostgreSQL; the pages served by two `barbu serve --bus` processes, so that a socket and the request
# beside it often reach different processes. (The cluster's own tests ran above.)
# Only the web suites, whatever else is asked: the arguments (./test.sh -k foo) narrow them further.
BARBU_TEST_DB=postgres BARBU_TEST_CLUSTER=1 BARBU_EXPECT=compiled .venv/bin/python -m pytest \
  --ignore=tests/test_web_cluster.py --ignore=tests/test_web_bus.py --ignore=tests/test_web_postgres.py \
  tests/test_web_*.py "$@"
