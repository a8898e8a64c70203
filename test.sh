#!/usr/bin/env bash
# Set up everything the tests need, then run lint, types and every test: ./test.sh [pytest args]
set -euo pipefail
cd "$(dirname "$0")"
source scripts/venv.sh
ensure_venv "dev"
echo "== ruff"; .venv/bin/ruff check src tests scripts
echo "== mypy --strict (engine and front ends)"; .venv/bin/mypy
echo "== pytest"; .venv/bin/python -m pytest "$@"
