"""Play a fixed set of seeded work and print its outcome as JSON, for comparing engine builds.

Run as ``python -m tests.native_probe`` from the repository; ``tests/test_native.py`` runs it once with the
compiled engine and once with ``BARBU_PURE=1`` and expects the same output line for line.
"""

from __future__ import annotations

import json
import random
from typing import Any

from tests.engine_helpers import EVERY_TABLE

import barbu
from barbu.bots import make_bot
from barbu.bots.endgame import Solver, solvable
from barbu.bots.expert import ExpertBot
from barbu.bots.fitted import likelihood, scores, weights_for
from barbu.bots.policy import heuristic_card, line_card
from barbu.engine.cards import bits
from barbu.engine.errors import IllegalActionError
from barbu.engine.game import Game
from barbu.engine.playout import finish_hand
from barbu.engine.record import to_record
from barbu.engine.state import Phase, State
from barbu.tools.arena import deal_state


def playouts() -> list[Any]:
    """Hands finished by the playout kernel from random points of random games."""
    out = []
    for g, game in enumerate(EVERY_TABLE):
        for seed in range(40):
            rng = random.Random(seed * 10 + g)
            state = State(game, seed=seed)
            while not state.is_over and rng.random() < 0.97:
                if state.phase == Phase.DEAL:
                    state.deal_random(rng)
                else:
                    state.apply(rng.choice(state.legal_actions()))
            if state.phase == Phase.DEAL:
                state.deal_random(rng)
            finish_hand(state, rng)
            out.append([state.totals, [[h.actions, h.contract_scores] for h in state.history]])
    return out


def refusals() -> list[Any]:
    """Every action the rules refuse at a few points of a game: who, which rule, what words."""
    out = []
    for game in EVERY_TABLE:
        rng = random.Random(7)
        state = State(game, seed=3)
        for step in range(120):
            if state.is_over:
                break
            if state.phase == Phase.DEAL:
                state.deal_random(rng)
                continue
            legal = set(state.legal_actions())
            for code in range(256) if step % 5 == 0 else ():
                if code not in legal:
                    try:
                        state.apply(code)
                    except IllegalActionError as err:
                        out.append([code, err.seat, err.rule, str(err)])
                    else:
                        out.append([code, "accepted"])
            state.apply(rng.choice(sorted(legal)))
    return out


def games_by_bots() -> list[Any]:
    """One hand of each rule set played by every level, as records."""
    out = []
    for game, levels in ((Game.classic(), ("strong", "pimc", "expert:0.1", "random")),
                         (Game.family(5), ("pimc", "strong", "random", "expert:0.1", "basic"))):
        bots = [make_bot(level, seed=i) for i, level in enumerate(levels)]
        for bot in bots:
            # The expert's safety stop counts CPU time, which differs between the builds; its budget
            # of work alone must end every decision for the two builds to be compared.
            if isinstance(bot, ExpertBot):
                bot.make_replayable()
        state = State(game, seed=11, first_declarer=0)
        while state.hand_no == 0:
            if state.phase == Phase.DEAL:
                state.deal_random()
            else:
                seat = state.current
                state.apply(bots[seat].act(state.observe(seat)))
        out.append(to_record(state, players=list(levels)))
    return out


def values() -> list[Any]:
    """The numbers the bots' compiled modules compute, to the last bit (repr), on seeded card plays.

    A difference here need not change any card the bots choose, so the games above could miss it.
    """
    out: list[Any] = []
    for g, game in enumerate(EVERY_TABLE):
        rng = random.Random(g)
        state = State(game, seed=g, first_declarer=0)
        state.deal_random(rng)
        while state.phase != Phase.PLAY:
            state.apply(rng.choice(state.legal_actions()))
        contract = state.contract
        assert contract is not None
        weights = weights_for(contract)
        while state.phase == Phase.PLAY and state.hand_no == 0:
            cards = list(bits(state.legal_mask()))
            if weights is not None:
                out.append([repr(x) for x in scores(state, cards, weights)])
                out.append([repr(likelihood(state, c, 0.1)) for c in cards])
            if solvable(state):
                values = Solver(state).card_values(state, state.current)
                out.append(sorted((c, repr(v)) for c, v in values.items()))
            state.apply(heuristic_card(state, rng))
    # A Dominoes hand as well, whose endings the expert solves when asked (+solvedom).
    rng = random.Random(7)
    state = deal_state(Game.classic(), 1, 6)
    while state.phase != Phase.PLAY:
        state.apply(rng.choice(state.legal_actions()))
    while state.phase == Phase.PLAY and state.hand_no == 0:
        if solvable(state, dominoes=True):
            values = Solver(state).card_values(state, state.current)
            out.append(sorted((c, repr(v)) for c, v in values.items()))
        out.append(line_card(state, random.Random(0), 0.0))  # the +lines placement, computed in each build
        state.apply(heuristic_card(state, rng))
    return out


if __name__ == "__main__":
    print(json.dumps({"compiled": barbu.COMPILED, "playouts": playouts(), "refusals": refusals(),
                      "bots": games_by_bots(), "values": values()}))
