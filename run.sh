#!/usr/bin/env bash
# Set up barbu in ./.venv (first run, or when pyproject.toml changed) and run it: ./run.sh play
set -euo pipefail
cd "$(dirname "$0")"
source scripts/venv.sh
ensure_venv "tui"
exec .venv/bin/barbu "${@:-play}"
