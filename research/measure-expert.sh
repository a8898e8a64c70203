#!/bin/bash
# The measurements of the expert level (docs/RESULTS.md, "The expert level"), with their deal
# counts fixed before running. Each run writes its summary to OUT/NAME.json and .txt; a run whose
# .json exists is skipped, and each run keeps a journal (OUT/NAME.journal) of the boards it has
# played, so a run cut by the end of a session goes on, started again, where it stopped.
#
#   bash research/measure-expert.sh [OUT] [JOBS] [CLUSTER]   (defaults: research/measurements/, 2, none)
#
# CLUSTER, a Dask scheduler's address (tcp://host:8786), plays the deals on its workers instead
# (barbu arena --cluster; the workers need the same barbu). The expert's budget is work (engine
# steps), and its safety stop counts CPU time, so a resumed run, or one run beside other work (under
# `nice`), plays the same cards as an uninterrupted one on a quiet machine; only the decision times
# it reports depend on the machine's load (take those from a run on a quiet machine).
#
# On the project's 2-core machine, with the bots' modules compiled (scripts/build-native.py), a deal
# of expert against three strong players takes about 10 s of wall time with both cores (27 s before
# they were compiled): the whole plan is some twelve hours, session after session, in the background.
# The journals are part of the repository (research/measurements/): commit them before a session ends.
#
# Reading the others' doubles for its own bets became the expert's default after the match against
# MCTS below (warybets-mcts-classic-53); the classic runs measured before it carry +nowary, the
# expert they measured, and family runs need none (the family rules have no doubles).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-research/measurements}
jobs=${2:-2}
cluster=(${3:+--cluster "$3"})
mkdir -p "$out"
barbu=.venv/bin/barbu

run() {  # NAME ARGS...: one arena run, skipped if done, resumed from its journal if cut
    local name=$1; shift
    [ -e "$out/$name.json" ] && return 0
    echo "== $name: barbu arena $*"
    # The summary is written aside and moved in with the JSON, so a file NAME.txt is a finished run.
    "$barbu" arena "$@" --jobs "$jobs" "${cluster[@]}" --no-records --quiet \
        --journal "$out/$name.journal" --json "$out/$name.tmp" > "$out/$name.txt.tmp"
    mv "$out/$name.txt.tmp" "$out/$name.txt"
    mv "$out/$name.tmp" "$out/$name.json"
}

family4=(--rules family --players 4)
# The headline first (the plan runs for days, session after session): expert at its default
# budget against strong.
run main-classic --bots expert+nowary,strong,strong,strong --deals 1000 --seed 21
run main-family4 --bots expert,strong,strong,strong "${family4[@]}" --deals 1000 --seed 21
run main-family5 --bots expert,strong,strong,strong,strong --rules family --players 5 --deals 350 --seed 21
# Techniques against each other, on the same deals (paired): the fitted playout policy or the
# rules of thumb, the exact endings or none, the inference or none.
run tech-fitted-classic --bots expert:0.3+nowary,expert:0.3+rules+nowary,strong,strong --deals 200 --seed 1
run tech-fitted-family4 --bots expert:0.3,expert:0.3+rules,strong,strong "${family4[@]}" --deals 200 --seed 1
run tech-solve-classic --bots expert:0.3+nowary,expert:0.3+nosolve+nowary,strong,strong --deals 200 --seed 1
run tech-infer-classic --bots expert:0.3+nowary,expert:0.3+flat+nowary,strong,strong --deals 200 --seed 1
# The rest runs shortest first, so that the end of a session cuts as few runs as it can (times
# with both cores, compiled): os-mcts (seeing every card; about 0.4 s a decision) about an hour;
# the split by kind of decision 20 to 40 minutes a part; the curve's 3 s point over an hour;
# os-ismcts (about 1.3 s a decision, three of them) some three hours. OpenSpiel's bots take more
# time a decision than the expert's budget gives it (see RESULTS.md); they exist where OpenSpiel is
# installed, as in the dev setup.
openspiel=$(.venv/bin/python -c "import pyspiel" 2>/dev/null && echo yes || true)
# The same wall time a decision: 1.5 s of work is about 0.4 s compiled, os-mcts's mean. (A first
# run gave the expert 0.4 s of work, a quarter of that time: research/measurements/mcts-0.4-stopped.*)
[ -n "$openspiel" ] && run mcts-classic --bots expert:1.5+nowary,os-mcts,os-mcts,os-mcts --deals 100 --seed 51
# Where the gain comes from: expert's own search for one kind of decision, strong's for the rest.
for part in bid double play; do
    run "part-$part-classic" --bots "expert:1+$part+nowary,strong,strong,strong" --deals 300 --seed 41
done
# Deal mode forces each deal's contract (deal k plays contract k mod 7), so +bid above measures
# only the trump suit and Dominoes' starting rank; the choice of contract itself is measured over
# whole games, where every declarer chooses (about 45 minutes).
run part-contract-classic --bots expert:1+bid,strong,strong,strong --games 40 --seed 41
# What more time buys.
for t in 0.1 0.3 1 3; do
    run "curve-$t-classic" --bots "expert:$t+nowary,strong,strong,strong" --deals 200 --seed 31
done
[ -n "$openspiel" ] && run ismcts-classic --bots expert:0.6+nowary,os-ismcts,os-ismcts,os-ismcts --deals 100 --seed 51
# A trial for Dominoes, Dominoes' endings solved (+solvedom), on deals already played without it, so
# that each pairs deal by deal with its run (research/paired-journals.py): the first 71 Dominoes deals
# of the classic headline, and the 14 of the match against os-mcts.
run solvedom-dominoes-classic --bots expert+solvedom+nowary,strong,strong,strong --contract dominoes --deals 71 --seed 21
[ -n "$openspiel" ] && run solvedom-mcts-dominoes --bots expert:1.5+solvedom+nowary,os-mcts,os-mcts,os-mcts --contract dominoes --deals 14 --seed 51
# The split and the curve again under the family rules at four players (there are no doubles):
# the card play over deals, the curve on one set of deals (its 1 s point included so that the
# points pair deal by deal), the choice of challenge over whole games (28 hands), and last the
# curve's 3 s point (about 50 minutes).
run part-play-family4 --bots expert:1+play,strong,strong,strong "${family4[@]}" --deals 300 --seed 41
curve_family4() {  # SECONDS: one point of the family curve
    run "curve-$1-family4" --bots "expert:$1,strong,strong,strong" "${family4[@]}" --deals 200 --seed 31
}
for t in 0.1 0.3 1; do curve_family4 "$t"; done
run part-contract-family4 --bots expert:1+bid,strong,strong,strong "${family4[@]}" --games 40 --seed 41
curve_family4 3
# A trial for the doubles (+wary: the others' doubles read as evidence, and a double of mine
# expecting an informed answer): the match against os-mcts, which doubles knowing every card, on
# mcts-classic's deals, then its doubles alone against strong, on part-double-classic's deals;
# each pairs deal by deal with that run.
[ -n "$openspiel" ] && run wary-mcts-classic --bots expert:1.5+wary,os-mcts,os-mcts,os-mcts --deals 100 --seed 51
run wary-double-classic --bots expert:1+double+wary,strong,strong,strong --deals 300 --seed 41
# Every Dominoes deal of the classic headline with its endings solved: with the headline's other
# deals, the headline of expert+solvedom (research/paired-journals.py --merged), as if the whole run
# were played again. Its first 71 deals are played again too: a journal's header fixes --deals,
# so the trial's journal above cannot be extended.
run solvedom-dominoes-classic-all --bots expert+solvedom+nowary,strong,strong,strong --contract dominoes --deals 142 --seed 21
# Against OpenSpiel's MCTS at a quarter of mcts-classic's time, both sides alike: 0.4 s of work is
# about 0.11 s a decision compiled, and os-mcts's 220 simulations the same (calibrated on 4 other
# deals: 200 simulations took 99 ms against the expert's 109). 200 deals, seed 51: its first 100
# are mcts-classic's.
[ -n "$openspiel" ] && run mcts-0.1-classic --bots expert:0.4+nowary,os-mcts:220,os-mcts:220,os-mcts:220 --deals 200 --seed 51
# A trial for the bets alone (+warybets: +wary's reading of the doubles for the expert's own
# doubles and redoubles, none for its card play): the Dominoes and Trumps deals of mcts-classic,
# where it lost; a hand bet alike plays alike, so each pairs deal by deal with that run.
for c in dominoes trumps; do
    [ -n "$openspiel" ] && run "warybets-mcts-$c" --bots expert:1.5+warybets,os-mcts,os-mcts,os-mcts --contract "$c" --deals 14 --seed 51
done
# Then the other five contracts' deals of the match (15, 15, 14, 14 and 14 of them), so that the
# seven runs together are mcts-classic played again with +warybets, deal by deal.
for c in no-tricks:15 no-queens:15 no-hearts:14 no-last-two:14 no-king:14; do
    [ -n "$openspiel" ] && run "warybets-mcts-${c%:*}" --bots expert:1.5+warybets,os-mcts,os-mcts,os-mcts --contract "${c%:*}" --deals "${c#*:}" --seed 51
done
# A second match of +warybets against MCTS at its own 800 simulations, on 100 new deals (seed 52),
# fixed before the run: with the seven runs above (mcts-classic's deals played again) it makes 200,
# read as one match by research/pooled-journals.py (the eight journals, seeds 51 and 52).
[ -n "$openspiel" ] && run warybets-mcts-classic-52 --bots expert:1.5+warybets,os-mcts,os-mcts,os-mcts --deals 100 --seed 52
# Those 200 deals read +1.99 ± 2.33: a lead whose interval holds zero. A third match, fixed on
# 2026-12-04 before its first board, is read alone, never pooled with them (they chose to run it):
# 500 new deals (seed 53), the same line-up. Its 95% interval above zero meets the issue's target
# against MCTS; otherwise the target stays unmet at 800 simulations. Sized for a lead of about two
# points a hand (a deal's edge has a standard deviation of about 17): 500 deals find it three
# times in four. Some eleven hours of both cores, session after session.
[ -n "$openspiel" ] && run warybets-mcts-classic-53 --bots expert:1.5+warybets,os-mcts,os-mcts,os-mcts --deals 500 --seed 53
# It read +2.66 ± 1.53 (+1.13 to +4.19): the target met, so reading the doubles for the bets
# became the expert's default. Fixed on 2026-12-05 before its first board: the classic headline
# against strong played again with that default, on the headline's 1,000 deals (seed 21), read
# alone by the issue's rule (at least 3 points a hand, its 95% interval above zero, no contract
# significantly worse); it pairs deal by deal with main-classic (research/paired-journals.py) for
# what the default gained. Some three hours of both cores.
run main-classic-bets --bots expert,strong,strong,strong --deals 1000 --seed 21
exit 0
