#!/usr/bin/env bash
# An experiment, not part of barbu: how fast would the same engine source run compiled?
# Builds cards, contracts, state and playout with mypyc in a scratch folder (the package
# itself stays pure Python) and runs the benchmark against that build:
#   scripts/bench-compiled.sh [bench arguments, e.g. --seconds 5]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/venv.sh
ensure_venv "dev,bench"
repo="$PWD"
build="$(mktemp -d)"
trap 'rm -rf "$build"' EXIT
cp -r src/barbu "$build/"
# game.py is left interpreted: mypyc refuses its object.__setattr__ of derived fields.
(cd "$build" && "$repo/.venv/bin/mypyc" barbu/cards.py barbu/contracts.py barbu/state.py \
  barbu/playout.py > build.log 2>&1) || { cat "$build/build.log"; exit 1; }
PYTHONPATH="$build" .venv/bin/python -c \
  "import barbu.playout as p; assert p.__file__.endswith('.so'), p.__file__; print('compiled:', p.__file__)"
PYTHONPATH="$build" .venv/bin/python -m barbu.bench "$@"
