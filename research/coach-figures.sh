#!/bin/bash
# The coach's figures against computers (docs/coach.md, "Figures"): a learner following every hint
# against the expert the coach asks, on the same deals, and a learner playing basic who heeds the
# coach's warnings at "big mistakes only" against plain basic. Deal counts are fixed before running.
# Each run writes its summary to OUT/NAME.txt and .json; a run whose .json exists is skipped, and
# each keeps a journal (OUT/NAME.journal) of the boards played, so a cut run goes on where it stopped.
#
#   bash research/coach-figures.sh [OUT] [JOBS]      (defaults: research/coach-figures/, 1)
#
# The learners (barbu.coach.learner) run the coach without its CPU-time stop, so every run replays
# exactly from its seed, beside other work or not. Every coach decision is a search: on the 2-core
# machine, compiled, a deal (four rotations) costs about 0.65 s of CPU with the light coach (16 deals
# a decision) and 5.4 s at the table's budget. The light runs come first (some 30 minutes of one
# core together); the table's budget last (some 45 minutes).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-research/coach-figures}
jobs=${2:-1}
python=${PYTHON:-.venv/bin/python}
mkdir -p "$out"
learner=barbu.coach.learner

run() {  # NAME ARGS...: one arena run, skipped if done, resumed from its journal if cut
    local name=$1; shift
    [ -e "$out/$name.json" ] && return 0
    echo "== $name: barbu arena $*"
    "$python" -m barbu.tools.arena "$@" --jobs "$jobs" --no-records --quiet \
        --journal "$out/$name.journal" --json "$out/$name.tmp" > "$out/$name.txt.tmp"
    mv "$out/$name.txt.tmp" "$out/$name.txt"
    mv "$out/$name.tmp" "$out/$name.json"
}

# (c) warned at "big mistakes only" against plain basic, the light coach.
run warned-light-classic --bots $learner:LightWarnedBasic,basic,basic,basic --deals 500 --seed 38
# (b) the follower and the expert it follows, in the same seat against the same opponents on the
# same deals (research/paired-journals.py compares the two runs deal by deal).
run follower-light-classic --bots $learner:LightFollower,basic,basic,basic --deals 400 --seed 38
run expert-light-classic --bots $learner:light_expert,basic,basic,basic --deals 400 --seed 38
run warned-light-family4 --bots $learner:LightWarnedBasic,basic,basic,basic --rules family --players 4 \
    --deals 500 --seed 38
# (c) at the table's budget.
run warned-classic --bots $learner:WarnedBasic,basic,basic,basic --deals 500 --seed 38
