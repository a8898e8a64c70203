#!/usr/bin/env bash
# An experiment, not part of barbu: how fast would the same engine source run compiled?
# Builds cards, contracts, state and playout with mypyc in a scratch folder (the package
# itself stays pure Python) and runs the benchmark, or the arena, against that build:
#   scripts/bench-compiled.sh [bench arguments, e.g. --seconds 5]
#   scripts/bench-compiled.sh arena --bots pimc,basic,basic,basic --deals 14 --jobs 1
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/venv.sh
ensure_venv "dev,bench"
repo="$PWD"
build="$(mktemp -d)"
trap 'rm -rf "$build"' EXIT
cp -r src/barbu "$build/"
# mypyc cannot make an instance without running __init__: the scratch copy() goes through it
# (slower per copy, so the bots' figures under this build are conservative).
sed -i 's/new = State.__new__(State)/new = State(self.game, self.seed, self.first_declarer)/' \
  "$build/barbu/state.py"
# game.py stays interpreted: mypyc refuses its object.__setattr__ of derived fields.
(cd "$build" && "$repo/.venv/bin/mypyc" barbu/cards.py barbu/contracts.py barbu/state.py \
  barbu/playout.py > build.log 2>&1) || { cat "$build/build.log"; exit 1; }
PYTHONPATH="$build" .venv/bin/python -c \
  "import barbu.playout as p; assert p.__file__.endswith('.so'), p.__file__; print('compiled:', p.__file__)"
if [ "${1:-}" = arena ]; then
  PYTHONPATH="$build" .venv/bin/python -m barbu.cli "$@"
else
  PYTHONPATH="$build" .venv/bin/python -m barbu.bench "$@"
fi
