#!/usr/bin/env bash
# Set up barbu in ./.venv (first run, or when pyproject.toml changed) and run it:
#   ./run.sh            serve card tables in the browser (barbu serve; it prints the address to open)
#   ./run.sh play       play in the terminal; any other arguments go to the barbu command
#   ./run.sh bench      the engine benchmark, beside OpenSpiel's Hearts (installed for it)
# The engine modules are compiled with mypyc when a C compiler is present (BARBU_PURE=1: pure Python).
set -euo pipefail
# barbu works in the caller's folder again (file arguments are relative to it) and prints
# commands the way the caller typed this script.
export BARBU_CALLER_CWD="$PWD" BARBU_LAUNCHER="$0"
cd "$(dirname "$0")"
source scripts/venv.sh
if [ "${1:-}" = bench ]; then
  ensure_venv "tui,web,native,bench"  # OpenSpiel, the reference the benchmark compares with
else
  ensure_venv "tui,web,native"
fi
.venv/bin/python scripts/build-native.py || echo "compiled engine: the build failed, barbu runs pure Python"
exec .venv/bin/barbu "${@:-serve}"
