"""The ``expert`` level: its names, its budget, and inference that finds the truth (legality and the
view-only rule are tested with every level in test_bots.py)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from tests.engine_helpers import dominoes_ending

from barbu.bots import levels, make_bot
from barbu.bots.endgame import DOMINO_LEFT, Solver
from barbu.bots.expert import Evaluated, ExpertBot, _doubling_choices, _play_likelihood, _says, make_expert
from barbu.bots.fitted import fitted_card
from barbu.bots.policy import heuristic_card
from barbu.engine.contracts import Kind
from barbu.engine.game import Game
from barbu.engine.observation import Observation
from barbu.engine.state import Phase, State

# Not run again on the pure-Python engine: the expert's decisions are its compiled kernels' work, and
# test_native plays the expert in both builds and compares the games byte for byte and its kernels'
# values to the last bit (docs/TESTING.md); here it is a third of that stage.


def _steady(seed: int, budget: float = 0.02, **kw: object) -> ExpertBot:
    """An expert whose decisions depend on its work budget only, never on the wall clock."""
    return ExpertBot(seed, budget=budget, replayable=True, **kw)  # type: ignore[arg-type]


def test_expert_is_a_level_and_its_names_parse() -> None:
    assert "expert" in levels()
    bot = make_bot("expert:0.25+double+flat", seed=3)
    assert isinstance(bot, ExpertBot)
    assert (bot.budget, bot.parts, bot.infer) == (0.25, frozenset({"double"}), False)
    assert make_expert("expert").budget == ExpertBot.budget
    for bad in ("expert:fast", "expert:-1", "expert:1+cards"):
        with pytest.raises(ValueError):
            make_bot(bad)


def _choice_among_three() -> Observation:
    """A card to play after the first trick, with at least three legal cards."""
    state = State(Game.classic(), seed=9)
    state.deal_random()
    rng = random.Random(9)
    while state.phase != Phase.PLAY or state.trick_no < 1 or len(state.legal_actions()) < 3:
        state.apply(rng.choice(state.legal_actions()))
    return state.observe(state.current)


def _deals_drawn(bot: ExpertBot, obs: Observation) -> int:
    """How many deals the bot draws for this decision, with pruning off (every deal costs the same)."""
    bot.drop_z = 1e9
    drawn = 0
    original = bot.world

    def counting(o: Observation) -> tuple[State, float]:
        nonlocal drawn
        drawn += 1
        return original(o)

    bot.world = counting  # type: ignore[method-assign]
    bot.search(obs, list(obs.legal))
    return drawn


def _ending_to_decide(players: int = 4) -> Observation:
    """A card decision of a trick game with three cards a hand (two at a larger table) and a choice."""
    game = Game.classic() if players == 4 else Game.family(players)
    for seed in range(40):
        state = State(game, seed=seed)
        state.deal_random()
        rng, left = random.Random(seed), 3 if players == 4 else 2
        while state.hand_no == 0 and state.hand_in_progress and (
                state.phase != Phase.PLAY or max(h.bit_count() for h in state.hands) > left):
            state.apply(rng.choice(state.legal_actions()))
        c = state.contract
        if (state.hand_no == 0 and state.phase == Phase.PLAY and c is not None and c.kind == Kind.TRICKS
                and len(state.legal_actions()) > 1):
            return state.observe(state.current)
    raise AssertionError("no such ending in 40 deals")


def _solves_seen(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A list that gets the seat of every deal the exact solver is asked to solve from now on."""
    solved: list[int] = []
    original = Solver.card_values

    def counting(self: Solver, state: State, seat: int, cards: object = None) -> dict[int, float]:
        solved.append(seat)
        return original(self, state, seat, cards)  # type: ignore[arg-type]

    monkeypatch.setattr(Solver, "card_values", counting)
    return solved


@pytest.mark.parametrize("players", [4, 5])
def test_small_endings_are_solved_unless_told_not_to(players: int, monkeypatch: pytest.MonkeyPatch) -> None:
    obs = _ending_to_decide(players)
    solved = _solves_seen(monkeypatch)
    assert _steady(1, 0.05).act(obs) in obs.legal
    assert len(solved) >= ExpertBot.solve_floor and set(solved) == {obs.seat}
    solved.clear()
    assert _steady(1, 0.05, solve_end=False).act(obs) in obs.legal
    assert solved == []
    # Earlier in the hand the ending is too big: the playouts decide.
    early = _choice_among_three()
    _steady(1, 0.05).act(early)
    assert solved == []


def _dominoes_to_decide() -> Observation:
    """A Dominoes decision with two or more cards to place, small enough to solve when asked."""
    for k in range(40):
        state = dominoes_ending(4, k, DOMINO_LEFT, random.Random(k))
        if state is not None and state.legal_mask().bit_count() > 1:
            assert state.contract is not None and state.contract.kind == Kind.DOMINOES
            return state.observe(state.current)
    raise AssertionError("no such Dominoes ending in 40 deals")


def test_dominoes_endings_are_solved_with_solvedom_only(monkeypatch: pytest.MonkeyPatch) -> None:
    obs = _dominoes_to_decide()
    solved = _solves_seen(monkeypatch)
    assert _steady(1, 0.05).act(obs) in obs.legal
    assert solved == []  # the default plays Dominoes out
    bot = make_expert("expert:0.05+solvedom", seed=1).make_replayable()
    assert bot.act(obs) in obs.legal
    assert len(solved) >= ExpertBot.solve_floor and set(solved) == {obs.seat}


def test_a_card_dropped_as_the_best_ones_twin_ends_with_its_final_mean() -> None:
    """B plays as A on every deal and is dropped; A's mean then falls below C's: C is chosen."""
    bot = _steady(1, 0.01)
    obs = _choice_among_three()
    a, b, c = obs.legal[:3]
    drawn = 0

    def evaluate(world: State, alive: list[int]) -> Evaluated:
        nonlocal drawn
        drawn += 1
        late = drawn > 16
        value = {a: -3.0 if late else 0.0, b: -3.0 if late else 0.0, c: -3.0 if drawn % 2 else 2.0}
        return {x: value[x] for x in alive}, 1.0, None

    means = bot._compare(obs, [a, b, c], 16, 40.0, evaluate)
    assert drawn == 40 and means[b] == means[a] < means[c]
    assert max(means, key=lambda x: (means[x], -x)) == c


def test_a_bigger_budget_draws_more_deals() -> None:
    """Beyond strong's deals, the work budget, not a fixed count, sets how many a decision gets."""
    obs = _choice_among_three()
    counts = [_deals_drawn(_steady(2, budget), obs) for budget in (0.6, 2.4)]
    assert counts[0] > ExpertBot.play_samples and counts[1] > 3 * counts[0]


def test_the_stop_counts_cpu_time_not_the_wall_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """A busy machine (the wall clock racing ahead) changes nothing; a slow engine (CPU time past
    the stop) ends the search at the stop, even short of strong's deals."""
    obs = _choice_among_three()
    calm = _deals_drawn(ExpertBot(2, budget=0.6), obs)
    ticks = iter(range(10**9))
    monkeypatch.setattr("barbu.bots.expert.time.perf_counter", lambda: float(next(ticks)) * 100)
    assert _deals_drawn(ExpertBot(2, budget=0.6), obs) == calm > ExpertBot.play_samples
    monkeypatch.setattr("barbu.bots.expert.time.process_time", lambda: float(next(ticks)) * 100)
    assert 1 <= _deals_drawn(ExpertBot(2, budget=0.6), obs) < ExpertBot.play_samples

def _policy_hand(game: Game, seed: int, tricks: int, fitted: bool = False) -> State:
    """A hand played for ``tricks`` tricks by the noiseless rule-of-thumb policy, or the fitted one."""
    state = State(game, seed=seed)
    state.deal_random()
    rng = random.Random(seed)
    while state.phase != Phase.PLAY:
        state.apply(min(state.legal_actions()))
    while state.trick_no < tricks:
        card = fitted_card(state, rng, noise=0.0) if fitted else None
        state.apply(heuristic_card(state, rng, noise=0.0) if card is None else card)
    return state


def test_the_policys_own_play_is_the_likeliest() -> None:
    state = _policy_hand(Game.classic(), 4, 2)
    legal = state.legal_actions()
    assert len(legal) > 1
    guess = heuristic_card(state, random.Random(0), noise=0.0)
    like = {a: _play_likelihood(state, a, 0.5) for a in legal}
    assert max(like, key=lambda a: like[a]) == guess
    assert sum(like.values()) == pytest.approx(1.0)


@pytest.mark.parametrize("fitted", [False, True])
def test_weighted_deals_are_closer_to_the_truth_than_unweighted_ones(fitted: bool) -> None:
    """When the others play as the policy does (the rules of thumb, or the fitted policy with its
    own likelihoods), the weights favour deals like the real one."""
    weighted = flat = 0.0
    for seed in range(8):
        state = _policy_hand(Game.classic(), seed, 6, fitted)
        seat = state.current
        obs = state.observe(seat)
        bot = ExpertBot(seed, fitted=fitted)
        worlds = [bot.world(obs) for _ in range(150)]

        def right(world: State, truth: State = state, seat: int = seat) -> int:
            return sum((world.hands[s] & truth.hands[s]).bit_count() for s in range(4) if s != seat)

        total = sum(w for _, w in worlds)
        weighted += sum(w * right(x) for x, w in worlds) / total
        flat += sum(right(x) for x, _ in worlds) / len(worlds)
    # Summed over the 8 hands: weighting puts about one more hidden card a hand in its true
    # seat (68.1 against 60.4 when written); half a card a hand is the bar.
    assert weighted > flat + 4


# -- +wary: the others' doubles as evidence ---------------------------------------------------

def _doubling(contract: str, *doubles: str) -> State:
    """A classic first hand, declarer 0, ``contract`` named and ``doubles`` spoken in turn."""
    state = State(Game.classic(), seed=5, first_declarer=0)
    assert state.deal_random()
    state.apply(state.game.parse_action(contract))
    for text in doubles:
        state.apply(state.game.parse_action(text))
    return state


def test_the_doubling_choices_are_every_bet_the_others_could_make_and_whether_they_did() -> None:
    state = _doubling("no-tricks", "double 0,2", "double none")
    assert state.current == 3
    # Seat 1 could double anyone; seat 2 not seat 1, who doubled him (that pair is a redouble's).
    assert _doubling_choices(state.observe(3)) == [
        (1, 0, True), (1, 2, True), (1, 3, False), (2, 0, False), (2, 3, False)]
    state.apply(state.game.parse_action("double 1"))
    # The declarer redoubles first: he sees the whole round, and nobody's redoubles yet.
    assert state.phase == Phase.REDOUBLE and state.current == 0
    assert _doubling_choices(state.observe(0))[-3:] == [(3, 0, False), (3, 1, True), (3, 2, False)]
    state.apply(state.game.parse_action("redouble 1"))
    # Seat 1, doubled by seat 3, answers next: he has read the declarer's redouble of him, and his
    # own doubles are not evidence to him.
    assert state.current == 1
    seen = _doubling_choices(state.observe(1))
    assert seen[-1] == (0, 1, True) and not any(t == 1 for t, _, _ in seen)


def test_a_compulsory_double_tells_nothing() -> None:
    state = _doubling("no-tricks")
    state.forced = 1 << 1  # seat 1 must double the declarer in this hand
    state.apply(state.game.parse_action("double 0"))
    assert (1, 0, True) not in _doubling_choices(state.observe(2))
    assert (1, 2, False) in _doubling_choices(state.observe(2))


def test_a_double_against_me_makes_the_deals_where_its_maker_wins_likelier(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Trumps, I declare (seat 0): seat 1 doubled me, seats 2 and 3 did not. Two deals, equally
    # likely by the play: on one seat 1 beats me by 20, on the other I beat him by 20; seats 2 and
    # 3 end level with me on both.
    worlds = [(1.0, (0, 20, 0, 0)), (1.0, (20, 0, 20, 20))]
    bot = ExpertBot(seed=1)
    monkeypatch.setattr(bot, "_played_out", lambda obs: worlds)
    state = _doubling("trumps", "trump H", "double 0", "double none", "double none")
    obs = state.observe(0)
    assert obs.phase == Phase.REDOUBLE
    assert _doubling_choices(obs) == [(1, 0, True), (2, 0, False), (3, 0, False)]
    edges = bot.wary_edges(obs)
    assert edges[1] < -10.0  # level as a coin toss; read as his bet, mostly the deal he wins
    assert edges[2] == edges[3] == 0.0
    # A deal's weight is the product of every choice's likelihood, each one a soft step.
    assert 0.0 < _says(-100.0, 1.0, 0.1) < _says(0.0, 1.0, 0.1) == 0.5 < _says(100.0, 1.0, 0.1) < 1.0


def test_a_double_of_mine_counts_the_answer_it_would_get(monkeypatch: pytest.MonkeyPatch) -> None:
    # Seat 1 is first to speak: nothing to read yet, so the deals keep their weights; but a double
    # of seat 3 is worth less than the plain mean, since seat 3 redoubles where he wins.
    bot = ExpertBot(seed=1)
    monkeypatch.setattr(bot, "_played_out", lambda obs: [(1.0, (0, 30, 0, 0)), (1.0, (0, 0, 0, 10))])
    obs = _doubling("no-tricks").observe(1)
    assert obs.phase == Phase.DOUBLE and _doubling_choices(obs) == []
    edges = bot.wary_edges(obs)
    assert edges[3] < 10.0  # the plain mean of (30 − 0) and (0 − 10)
    # 30 and 0 against seat 0: 15, and hardly more, since he would seldom answer a bet he loses.
    assert 15.0 < edges[0] < 17.5


def test_in_the_play_every_doubling_choice_is_seen() -> None:
    state = _doubling("no-tricks", "double 0,2", "double none", "double 1", "redouble 1", "redouble none")
    assert state.current == 2 and state.phase == Phase.REDOUBLE
    state.apply(state.game.parse_action("redouble 1"))
    assert state.phase == Phase.PLAY
    # Seat 3's own bets are not evidence to him; everyone else's are, the redoubles last.
    assert _doubling_choices(state.observe(3)) == [
        (1, 0, True), (1, 2, True), (1, 3, False), (2, 0, False), (2, 3, False),  # the doubles
        (0, 1, True), (1, 3, False), (2, 1, True)]  # the redoubles, the declarer first


def test_wary_weighs_the_play_by_the_doubles_it_read(monkeypatch: pytest.MonkeyPatch) -> None:
    state = _doubling("no-hearts")
    bots = {s: make_expert("expert:0.02+wary", seed=s) for s in range(4)}
    read: list[float] = []
    real = ExpertBot._choices_likelihood

    def spy(self: ExpertBot, *args: Any) -> float:
        got = real(self, *args)
        if self._doubles_to_read(now[0]) is not None:
            read.append(got)
        return got

    monkeypatch.setattr(ExpertBot, "_choices_likelihood", spy)
    now: list[Observation] = []
    plain = make_expert("expert:0.02+nowary")
    default = make_expert("expert:0.02")
    while not state.history:
        seat = state.current
        now[:] = [state.observe(seat)]
        if now[0].phase == Phase.PLAY:
            # Without +wary nothing is read in the play, by default or with +nowary.
            assert plain._doubles_to_read(now[0]) is None is default._doubles_to_read(now[0])
        state.apply(bots[seat].act(now[0]))
    assert state.history[0].contract == "no-hearts"
    # Each seat's card decisions read the doubles: deals of unequal likelihood.
    assert len(set(read)) > 1


def test_by_default_the_doubles_are_read_for_the_bets_and_the_cards_are_played_as_without(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Seat 1 doubled the declarer: the expert reads it where it bets (its redouble, its edges), and
    # in the play draws and weighs exactly the deals the expert without the reading (+nowary)
    # does, so that a hand where both bet alike plays alike, card for card.
    state = _doubling("trumps", "trump H", "double 0", "double none", "double none")
    obs = state.observe(0)
    assert obs.phase == Phase.REDOUBLE
    # Replayable: the work budget, not the CPU clock's safety stop, ends each decision.
    bets = make_expert("expert:0.02", seed=3).make_replayable()
    plain = make_expert("expert:0.02+nowary", seed=3).make_replayable()
    twin = make_expert("expert:0.02+warybets", seed=3).make_replayable()  # the default, named
    read = twin.wary_edges(obs)
    assert read != make_expert("expert:0.02+nowary", seed=3).make_replayable()._weighted_edges(obs)
    readers: list[ExpertBot] = []
    real = ExpertBot.wary_edges

    def spy(self: ExpertBot, o: Observation) -> list[float]:
        readers.append(self)
        return real(self, o)

    monkeypatch.setattr(ExpertBot, "wary_edges", spy)
    # Its redouble is the one the reading gives; +nowary's comes from its own edges.
    assert bets.act(obs) == bets.double_for(obs, read)
    plain.act(obs)
    assert readers == [bets]
    assert bets.rng.getstate() == plain.rng.getstate() == twin.rng.getstate()
    state.apply(state.game.parse_action("redouble none"))
    for _ in range(6):
        obs = state.observe(state.current)
        assert bets._doubles_to_read(obs) is None
        card = bets.act(obs)
        assert card == plain.act(obs) and bets.rng.getstate() == plain.rng.getstate()
        state.apply(card)


def test_where_nobody_doubles_reading_the_doubles_changes_nothing() -> None:
    # The family rules have no doubles: the expert with and without the reading plays the same
    # hand, card for card (so the family figures measured before the default hold for it).
    state = State(Game.family(4), seed=8)
    assert state.deal_random()
    bots = [make_expert("expert:0.02", seed=s).make_replayable() for s in range(4)]
    plain = [make_expert("expert:0.02+nowary", seed=s).make_replayable() for s in range(4)]
    while not state.history:
        obs = state.observe(state.current)
        action = bots[obs.seat].act(obs)
        assert action == plain[obs.seat].act(obs)
        state.apply(action)


@pytest.mark.parametrize(
    "name", ["expert+wary+warybets", "expert+nowary+wary", "expert:1+play+nowary+warybets"])
def test_two_readings_of_the_doubles_are_refused(name: str) -> None:
    with pytest.raises(ValueError, match="three readings of the others' doubles; give one"):
        make_expert(name)


def test_an_unknown_reading_is_refused() -> None:
    with pytest.raises(ValueError, match="the doubles are read for bets or all or none, not 'some'"):
        ExpertBot(reads="some")  # type: ignore[arg-type]


def test_a_declarer_nobody_doubled_reads_that_too() -> None:
    # Trumps, nobody doubles: the declarer never decides a double, yet "nobody bet against me" is
    # evidence; its first card decision measures the spreads it needs.
    state = _doubling("trumps", "trump H", "double none", "double none", "double none")
    obs = state.observe(0)
    assert obs.phase == Phase.PLAY
    bot = make_expert("expert:0.02+wary", seed=2)
    read = bot._doubles_to_read(obs)
    assert read is not None
    choices, spreads = read
    assert choices == [(1, 0, False), (2, 0, False), (3, 0, False)]
    assert all(spreads[t][0] >= bot.wary_scale for t in (1, 2, 3))  # at least a point, halved
    assert bot._doubles_to_read(obs) == read  # measured once a hand
