#!/usr/bin/env bash
# Set up barbu in ./.venv (first run, or when pyproject.toml changed) and run it:
#   ./run.sh            serve card tables in the browser (barbu serve; it prints the address to open)
#   ./run.sh play       play in the terminal; any other arguments go to the barbu command
set -euo pipefail
cd "$(dirname "$0")"
source scripts/venv.sh
ensure_venv "tui,web"
exec .venv/bin/barbu "${@:-serve}"
