#!/usr/bin/env bash
# Set up everything the tests need, then run lint, types and every test: ./test.sh [pytest args]
set -euo pipefail
cd "$(dirname "$0")"
source scripts/venv.sh
ensure_venv "dev"
echo "== ruff"; .venv/bin/ruff check src tests scripts
echo "== mypy --strict (engine and front ends)"; .venv/bin/mypy
if [ ! -x /usr/bin/chromium ]; then
  # The browser test drives Debian's chromium (Playwright never downloads a browser here).
  echo "== installing chromium for the browser test"
  apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium
fi
echo "== pytest"; .venv/bin/python -m pytest "$@"
