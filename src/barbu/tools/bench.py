"""Engine speed, measured and printed: ``python -m barbu.tools.bench`` (or ``barbu bench``).

Figures, each from random legal play in this one process:

* complete classic games (28 hands, contracts, doubles, play) per second through
  the public API (``legal_actions`` + ``apply``), and the actions per second that makes;
* full-deal hands per second (deal, contract, doubles, 13 tricks, score), once with the
  playout kernel that the bots' searches use and once action by action through the API;
* the same full-deal playout of OpenSpiel's Hearts driven from Python, when the
  ``open_spiel`` package is installed, and the ratios of the rates.

``--env`` measures the learning environment instead (:mod:`barbu.tools.envbench`).

The header says which build of the engine modules ran: compiled with mypyc, or the pure
Python source (``BARBU_PURE=1``, or no compiled build); the figures differ by about 2×.

Both engines draw every random action the same way, ``actions[int(random() * len(actions))]``,
and OpenSpiel's chance steps (its pass direction, then the 52 cards of the deal) are drawn from
its ``legal_actions()``, which at a chance node lists the possible outcomes: all equally likely
in Hearts, and the one "no pass" direction when passing is off.
"""

from __future__ import annotations

import argparse
import platform
import random
import sys
import time
from collections.abc import Callable, Sequence

import barbu
from barbu.engine.game import CONTRACT, DOUBLE, Game
from barbu.engine.playout import finish_hand
from barbu.engine.state import Phase, State
from barbu.extras import foreign, missing_extra
from barbu.wording import at_least, positive_seconds


def _rate(work: Callable[[], int], seconds: float) -> tuple[float, float]:
    """Run ``work`` (which returns how many actions it took) for about ``seconds``.

    Returns (runs per second, actions per second).
    """
    runs = actions = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        actions += work()
        runs += 1
        now = time.perf_counter()
        if now >= deadline:
            break
    elapsed = now - start
    return runs / elapsed, actions / elapsed


def classic_game(rng: random.Random) -> int:
    """One complete classic game of random legal actions; returns the number of actions."""
    state = State(CLASSIC, seed=rng.getrandbits(32))
    rnd = rng.random
    count = 0
    while not state.is_over:
        if state.phase == Phase.DEAL:
            state.deal_random(rng)
        else:
            actions = state.legal_actions()
            state.apply(actions[int(rnd() * len(actions))])
            count += 1
    return count


CLASSIC = Game.classic()
BUILDS = {True: "compiled with mypyc (BARBU_PURE=1 runs the pure source)",
          False: "pure Python"}


def _bid_hand(rng: random.Random, contract: int) -> State:
    """A fresh classic game at its first card: dealt, the contract named, three 'no double's."""
    state = State(CLASSIC, seed=0, first_declarer=0)
    state.deal_random(rng)
    state.apply(CONTRACT + contract)
    for _ in range(3):
        state.apply(DOUBLE)
    return state


def barbu_hand(rng: random.Random, contract: int = 0) -> int:
    """One full-deal hand: deal, contract, three 'no double's, random play to the end, score."""
    state = _bid_hand(rng, contract)
    finish_hand(state, rng)
    return 4 + len(state.history[0].actions)


def barbu_api_hand(rng: random.Random, contract: int = 0) -> int:
    """:func:`barbu_hand` with the cards played one by one through ``legal_actions`` and ``apply``."""
    state = _bid_hand(rng, contract)
    rnd = rng.random
    count = 4
    while state.hand_no == 0:
        actions = state.legal_actions()
        state.apply(actions[int(rnd() * len(actions))])
        count += 1
    return count


def openspiel_hand_factory() -> Callable[[random.Random], int] | None:
    """A function playing one random OpenSpiel Hearts deal, or None without open_spiel."""
    try:
        import pyspiel  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        return None
    game = pyspiel.load_game("hearts", {"pass_cards": False})

    def hand(rng: random.Random) -> int:
        state = game.new_initial_state()
        rnd = rng.random
        count = 0
        while not state.is_terminal():
            # At a chance node too, legal_actions() lists the outcomes (see the module's doc).
            actions = state.legal_actions()
            state.apply_action(actions[int(rnd() * len(actions))])
            count += 1
        state.returns()
        return count

    return hand


def _best_of(work: Callable[[], int], seconds: float, rounds: int) -> tuple[float, float]:
    """The fastest of ``rounds`` measurements: the figure least disturbed by other load."""
    return max((_rate(work, seconds / rounds) for _ in range(rounds)), key=lambda r: r[0])


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seconds", type=positive_seconds, default=3.0,
                        help="time per figure (default 3)")
    parser.add_argument("--rounds", type=at_least(1), default=5,
                        help="measurements per figure, best kept (default 5)")
    parser.add_argument("--seed", type=int, default=1,
                        help="seed of the random deals and actions, the same on both sides (default 1)")
    parser.add_argument("--env", action="store_true",
                        help="measure the learning environment (barbu.env, needs the rl extra) "
                             "beside OpenSpiel Hearts with its tensors instead")
    parser.add_argument("--batches", type=_batches, default=(1, 64, 1024, 4096),
                        help="with --env: batch sizes of barbu.vector, comma-separated "
                             "(default 1,64,1024,4096)")


def _batches(text: str) -> tuple[int, ...]:
    """``1,64,1024``: the batch sizes to measure barbu.vector at, each 1 or more."""
    whole = at_least(1)
    return tuple(whole(part) for part in text.split(","))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m barbu.tools.bench", description=__doc__.split("\n")[0])
    add_arguments(parser)
    return run(parser.parse_args(argv))


def run(args: argparse.Namespace) -> int:
    if args.env:
        try:
            from barbu.tools import envbench  # numpy and PettingZoo: only for --env
        except ModuleNotFoundError as e:
            if not foreign(e):
                raise
            print(missing_extra("barbu bench --env", e, "rl"), file=sys.stderr)
            return 2
        return envbench.run(args)
    rng = random.Random(args.seed)
    rounds = args.rounds
    print(f"barbu engine benchmark — Python {platform.python_version()} on {platform.machine()}, "
          f"{args.seconds:g} s per figure, best of {rounds}, seed {args.seed}")
    print(f"  engine build: {BUILDS[barbu.COMPILED]}")
    games, actions = _best_of(lambda: classic_game(rng), args.seconds, rounds)
    print(f"  complete classic games (API)   {games:10.1f} games/s   {actions:12,.0f} actions/s")
    works = {"barbu full-deal hands (kernel)": lambda: barbu_hand(rng),
             "barbu full-deal hands (API)": lambda: barbu_api_hand(rng)}
    openspiel = openspiel_hand_factory()
    if openspiel is not None:
        works["OpenSpiel Hearts from Python"] = lambda: openspiel(rng)
    # Alternate the figures round by round so that a change in the machine's load touches all alike.
    best: dict[str, tuple[float, float]] = {name: (0.0, 0.0) for name in works}
    for _ in range(rounds):
        for name, work in works.items():
            best[name] = max(best[name], _rate(work, args.seconds / rounds))
    for name, (hands, hand_actions) in best.items():
        print(f"  {name:30s} {hands:10,.0f} hands/s   {hand_actions:12,.0f} actions/s")
    if openspiel is None:
        print("  OpenSpiel Hearts               not installed (pip install open_spiel) — no reference")
        return 0
    reference = best["OpenSpiel Hearts from Python"][0]
    print("  (OpenSpiel: pass direction and deal as 53 chance actions, no passing, 52 cards)")
    print(f"  ratio kernel / OpenSpiel       {best['barbu full-deal hands (kernel)'][0] / reference:10.2f} ×")
    print(f"  ratio API / OpenSpiel          {best['barbu full-deal hands (API)'][0] / reference:10.2f} ×")
    return 0


if __name__ == "__main__":
    sys.exit(main())
