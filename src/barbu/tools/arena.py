"""``barbu arena``: duplicate matches between bot levels, with paired confidence intervals and timings.

How a match is built (this text is also the help of ``barbu arena``):

* The line-up is one bot per seat, ``--bots strong,basic,basic,basic``; bot ``i`` is called
  ``i:level``. In rotation ``r`` bot ``b`` sits in seat ``(b + r) mod n``, so over the ``n``
  rotations every bot sits in every seat exactly once.
* Deal mode (``--deals N``): deal ``k`` is one hand played from a fresh game. Its cards come from
  a seed derived from ``(S, k)``; its declarer (family: chooser) is seat ``k mod n``; its contract
  is contract ``k mod 7`` of the table, forced by marking the declarer's other six as already
  declared. The bots make every other decision themselves: trump suit, starting rank, doubles,
  redoubles, play. As ``n`` (3 to 6) and 7 are coprime, any ``7n`` consecutive deals hold every
  declarer × contract pair once. Each hand is the first of its declarer's seven, so the classic
  doubling obligation never makes a double compulsory in deal mode. Each deal is played once per
  rotation with the same cards.
* ``--contract ID`` (deal mode) plays only the deals of one contract: the ``k``-th board is deal
  ``7k + i`` of the full match, ``i`` the contract's place in the table, so its cards, declarer
  and contract, and the bots' seeds, are those that deal has in a match without the option, so
  it is played exactly as there (the declarers still take turns). A way to study one contract at
  a seventh of the cost.
* Game mode (``--games G``): game ``g`` is a complete game (28 hands, or 7n family rounds) from a
  seed derived from ``(S, g)`` with first declarer ``g mod n``, again played once per rotation: the
  hand numbered ``h`` gets the same cards in every rotation (a family redeal aside).
* Pairing: a *board* is a deal (deal mode) or a game (game mode). For a board and a bot, ``m`` is
  the bot's mean score per hand over every hand it played in that board, all rotations together.
  Every figure is a mean over boards with the 95% interval ``± 1.96·sd/√n`` (``n`` boards). A
  bot's *edge* is ``m`` minus the mean ``m`` of the other bots; a level comparison ``A vs B`` is
  the mean ``m`` of A's bots minus that of B's bots. Edges and comparisons are signed so that
  positive always means better: family scores are penalties (lower is better), so there the sign
  is reversed.
* Records: every deal × rotation and game × rotation is written as a RECORD.md record,
  ``DIR/deal0007-rot2.json`` or ``DIR/game0003-rot1.json``; players are named ``i:level``.
* Every bot sees only its seat's observation, except a cheating baseline (``os-mcts``, where
  OpenSpiel is installed), which the arena shows the whole state before each of its decisions.
* ``--jobs J`` plays boards in J processes; results are merged in board order, so a seed gives
  the same scores with any J (decision times of course vary).
* ``--cluster [ADDRESS]`` plays them on a Dask cluster instead (the ``arena-cluster`` extra):
  ``--cluster tcp://host:8786`` on a running scheduler's workers, which need the same barbu
  version installed (checked before any play); ``--cluster`` alone on a local cluster of J
  one-thread worker processes. Dask rather than Ray: it is pure Python, a small pip install with
  no daemon or object store, a local cluster starts in about a second, and a scheduler's address
  is all it takes to reach a remote one. Results are merged in board order here too: the same
  seed gives the same scores as a local run. Records are written on this machine.
* ``--journal FILE`` appends each finished board × rotation to FILE (JSON lines, flushed, the
  match's arguments in the first line). Started again with the same FILE and arguments, the
  arena plays only what the journal lacks and ends with the summary of an uninterrupted run;
  a journal of another match is refused. Without ``--out`` the records go beside the journal,
  ``FILE`` with the suffix ``.records``, so that a resumed run adds to the same folder.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import multiprocessing
import random
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from types import TracebackType
from typing import Any, TypeAlias

from barbu.bots import EXPERT, POLICY, SEARCHES, Bot, level_label, levels, levels_named, make_bot
from barbu.bots.plugins import is_import_path
from barbu.engine.contracts import CLASSIC_OPTIONS, OPTION_HELP
from barbu.engine.errors import IllegalActionError
from barbu.engine.game import Game
from barbu.engine.record import dump, to_record
from barbu.engine.state import Phase, State
from barbu.tools.cluster import LOCAL, ClusterError, run_calls
from barbu.tools.journal import Journal, JournalError, read_entries

Z95 = 1.96
DEAL, GAME = "deal", "game"
CONNECT_TIMEOUT = 10.0  # seconds to reach a Dask scheduler before giving up
Task: TypeAlias = tuple[str, int, int]  # kind, board, rotation


class ArenaError(Exception):
    """A match cannot be set up or a bot broke the rules."""


# -- the match ---------------------------------------------------------------

@dataclass(frozen=True)
class Config:
    """What a match is: the line-up, the rules and the seed; where its records go."""

    bots: tuple[str, ...]
    ruleset: str = "classic"
    options: tuple[str, ...] = ()
    seed: int = 1
    out: str | None = None  # folder of the records; None writes none
    contract: str | None = None  # deal mode: only the deals of this contract (``--contract``)

    @property
    def players(self) -> int:
        return len(self.bots)

    @cached_property
    def game(self) -> Game:
        return Game(self.ruleset, self.players, frozenset(self.options))

    def deal_number(self, board: int) -> int:
        """The deal of the full match that board ``board`` plays (itself without ``contract``)."""
        if self.contract is None:
            return board
        count = len(self.game.contracts)
        return count * board + [c.id for c in self.game.contracts].index(self.contract)

    def record_path(self, kind: str, board: int, rotation: int) -> Path:
        """Where a board's record goes, named by its deal of the full match (``--contract``)."""
        assert self.out is not None
        number = self.deal_number(board) if kind == DEAL else board
        return Path(self.out) / record_name(kind, number, rotation)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(f"{i}:{level}" for i, level in enumerate(self.bots))

    @property
    def sign(self) -> int:
        """+1 when a higher score is better (classic), -1 for penalties (family)."""
        return 1 if self.ruleset == "classic" else -1


@dataclass(frozen=True)
class TaskResult:
    """One board played in one rotation."""

    kind: str
    board: int
    rotation: int
    seats: tuple[int, ...]  # the bot sitting in each seat
    hands: tuple[tuple[str, tuple[int, ...]], ...]  # per hand: contract id, score of each seat
    winners: tuple[int, ...]  # seats with the best total (game mode; empty in deal mode)
    times: tuple[tuple[float, ...], ...]  # per seat: seconds of each bot.act call

    @property
    def task(self) -> Task:
        return (self.kind, self.board, self.rotation)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "board": self.board, "rotation": self.rotation,
                "seats": list(self.seats), "hands": [[c, list(s)] for c, s in self.hands],
                "winners": list(self.winners), "times": [list(t) for t in self.times]}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> TaskResult:
        return cls(d["kind"], d["board"], d["rotation"], tuple(d["seats"]),
                   tuple((c, tuple(s)) for c, s in d["hands"]), tuple(d["winners"]),
                   tuple(tuple(t) for t in d["times"]))


def derive_seed(*parts: object) -> int:
    """A 63-bit seed from labelled parts; string seeding of ``random`` is the same on every run."""
    return random.Random(":".join(["barbu-arena", *map(str, parts)])).getrandbits(63)


def seating(players: int, rotation: int) -> tuple[int, ...]:
    """The bot in each seat for a rotation: bot b sits in seat (b + rotation) mod n."""
    return tuple((seat - rotation) % players for seat in range(players))


def deal_state(game: Game, seed: int, k: int) -> State:
    """The fresh, dealt state of deal ``k``: declarer k mod n, contract k mod 7 forced."""
    state = State(game, seed=derive_seed(seed, DEAL, k), first_declarer=k % game.players)
    count = len(game.contracts)
    state.used[state.declarer] = ((1 << count) - 1) & ~(1 << (k % count))
    while not state.deal_random():  # family: K♥ set aside with only King left is redealt
        pass
    return state


def game_state(game: Game, seed: int, g: int) -> State:
    return State(game, seed=derive_seed(seed, GAME, g), first_declarer=g % game.players)


def record_name(kind: str, board: int, rotation: int) -> str:
    return f"{kind}{board:04d}-rot{rotation}.json"


def play_task(cfg: Config, kind: str, board: int, rotation: int) -> TaskResult:
    """Play one board in one rotation, write its record, and return scores and timings."""
    res, record = play_board(cfg, kind, board, rotation)
    if record is not None and cfg.out is not None:
        dump(record, cfg.record_path(kind, board, rotation))
    return res


def play_board(cfg: Config, kind: str, board: int,
               rotation: int) -> tuple[TaskResult, dict[str, Any] | None]:
    """Play one board in one rotation: its scores and timings, and its record (None when the
    match keeps none), which the caller writes where it runs."""
    game = cfg.game
    seats = seating(game.players, rotation)
    number = cfg.deal_number(board) if kind == DEAL else board  # the bots' seeds follow it too
    state = deal_state(game, cfg.seed, number) if kind == DEAL else game_state(game, cfg.seed, board)
    bots = [make_bot(cfg.bots[b], derive_seed(cfg.seed, kind, number, rotation, "bot", b)) for b in seats]
    done: Callable[[State], bool] = (lambda s: bool(s.history)) if kind == DEAL else (lambda s: s.is_over)
    times = _drive(state, bots, done, lambda seat: f"{cfg.names[seats[seat]]} in seat {seat} "
                   f"({kind} {board}, rotation {rotation})")
    record = None if cfg.out is None else to_record(state, [cfg.names[b] for b in seats])
    return TaskResult(kind, board, rotation, seats,
                      tuple((h.contract, tuple(h.scores)) for h in state.history),
                      tuple(state.winners()), tuple(tuple(t) for t in times)), record


def _drive(state: State, bots: Sequence[Bot], done: Callable[[State], bool],
           who: Callable[[int], str]) -> list[list[float]]:
    """Let the bots play until ``done``; returns each seat's decision times."""
    times: list[list[float]] = [[] for _ in bots]
    clock = time.perf_counter
    while not done(state):
        if state.phase == Phase.DEAL:
            state.deal_random()
            continue
        seat = state.current
        obs = state.observe(seat)
        if bots[seat].cheats:
            bots[seat].show(state)  # a cheating baseline (os-mcts) reads the true state
        start = clock()
        action = bots[seat].act(obs)
        times[seat].append(clock() - start)
        try:
            state.apply(action)
        except IllegalActionError as e:
            raise ArenaError(f"{who(seat)} chose an illegal action: {e}") from e
    return times


def tasks_of(players: int, deals: int, games: int) -> list[Task]:
    """Every (kind, board, rotation) of a match; games first, as they are the long tasks."""
    return ([(GAME, g, r) for g in range(games) for r in range(players)]
            + [(DEAL, k, r) for k in range(deals) for r in range(players)])


def run_tasks(cfg: Config, tasks: Sequence[Task], jobs: int,
              advance: Callable[[int], None] = lambda hands: None, *, cluster: str | None = None,
              timeout: float = CONNECT_TIMEOUT,
              finished: Callable[[TaskResult], None] = lambda res: None) -> list[TaskResult]:
    """Play the tasks here, in ``jobs`` processes, or on the Dask cluster at ``cluster`` (LOCAL:
    one started here); ``finished`` sees each result as it comes, the list is in task order."""
    done: dict[Task, TaskResult] = {}
    for res in _finishing(cfg, tasks, jobs, cluster, timeout):
        done[res.task] = res
        finished(res)
        advance(len(res.hands))
    return [done[t] for t in tasks]


def _finishing(cfg: Config, tasks: Sequence[Task], jobs: int, cluster: str | None,
               timeout: float) -> Iterator[TaskResult]:
    """The tasks' results in the order they finish."""
    if not tasks:
        return
    if cluster is not None:
        yield from _on_cluster(cfg, tasks, jobs, cluster, timeout)
    elif jobs <= 1:
        for task in tasks:
            yield play_task(cfg, *task)
    else:
        yield from _in_processes(cfg, tasks, jobs)


def _in_processes(cfg: Config, tasks: Sequence[Task], jobs: int) -> Iterator[TaskResult]:
    # spawn: workers start clean, whatever threads (the progress bar) the parent runs.
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as pool:
        futures = [pool.submit(play_task, cfg, *task) for task in tasks]
        try:
            for fut in as_completed(futures):
                yield fut.result()
        except BaseException:  # GeneratorExit too: the caller gave up on the rest
            pool.shutdown(wait=True, cancel_futures=True)
            raise


def _on_cluster(cfg: Config, tasks: Sequence[Task], jobs: int, address: str,
                timeout: float) -> Iterator[TaskResult]:
    calls = [(cfg, *task) for task in tasks]
    try:
        for _, (res, record) in run_calls(address, jobs, timeout, play_board, calls):
            # Written here rather than on the worker, which may be another machine.
            if record is not None and cfg.out is not None:
                dump(record, cfg.record_path(*res.task))
            yield res
    except ClusterError as e:
        raise ArenaError(str(e)) from None


# -- statistics --------------------------------------------------------------

@dataclass(frozen=True)
class Interval:
    """A mean over ``n`` boards and the half-width of its 95% interval (nan when n < 2)."""

    mean: float
    half: float
    n: int

    @property
    def low(self) -> float:
        return self.mean - self.half

    @property
    def high(self) -> float:
        return self.mean + self.half

    def to_json(self) -> dict[str, Any]:
        ok = not math.isnan(self.half)
        return {"mean": self.mean, "half_width": self.half if ok else None,
                "low": self.low if ok else None, "high": self.high if ok else None, "n": self.n}


def interval(xs: Sequence[float]) -> Interval:
    """Mean ± 1.96·sd/√n, with the sample standard deviation (n − 1).

    >>> _iv(interval([1.0, 2.0, 3.0, 4.0]).to_json(), 4)
    '+2.5000 ± 1.2652'
    """
    n = len(xs)
    if n == 0:
        return Interval(math.nan, math.nan, 0)
    mean = math.fsum(xs) / n
    if n < 2:
        return Interval(mean, math.nan, n)
    var = math.fsum((x - mean) ** 2 for x in xs) / (n - 1)
    return Interval(mean, Z95 * math.sqrt(var / n), n)


def board_means(results: Sequence[TaskResult], bots: int) -> dict[str | None, list[float]]:
    """Each bot's mean score per hand over one board's results (all rotations): over every hand
    (key None) and over the hands of each contract; left out where some bot played no such hand."""
    sums: dict[str | None, list[float]] = {}
    counts: dict[str | None, list[int]] = {}
    for res in results:
        for cid, scores in res.hands:
            for key in (None, cid):
                s, c = sums.setdefault(key, [0.0] * bots), counts.setdefault(key, [0] * bots)
                for seat, score in enumerate(scores):
                    s[res.seats[seat]] += score
                    c[res.seats[seat]] += 1
    return {key: [s / c for s, c in zip(sums[key], counts[key], strict=True)]
            for key in sums if all(counts[key])}


def win_shares(results: Sequence[TaskResult], bots: int) -> list[float]:
    """Each bot's share of one game's wins over the rotations, ties split."""
    shares = [0.0] * bots
    for res in results:
        for seat in res.winners:
            shares[res.seats[seat]] += 1 / len(res.winners)
    return [s / len(results) for s in shares]


def level_order(bots: Sequence[str]) -> list[str]:
    """The distinct levels, in order of first appearance in the line-up."""
    return list(dict.fromkeys(bots))


def _level_mean(row: Sequence[float], bots: Sequence[str], level: str) -> float:
    vals = [v for v, lv in zip(row, bots, strict=True) if lv == level]
    return math.fsum(vals) / len(vals)


def compare(rows: Sequence[Sequence[float]], bots: Sequence[str], sign: int) -> dict[str, Any]:
    """Per-bot means and edges and per-level-pair differences over boards (one row per board)."""
    n = len(bots)
    per_bot = []
    for b in range(n):
        own = [row[b] for row in rows]
        edge = [sign * (row[b] - math.fsum(row[o] for o in range(n) if o != b) / (n - 1))
                for row in rows]
        per_bot.append({"mean": interval(own), "edge": interval(edge)})
    order = level_order(bots)
    pairs = []
    for i, first in enumerate(order):
        for second in order[i + 1:]:
            diff = [sign * (_level_mean(row, bots, first) - _level_mean(row, bots, second))
                    for row in rows]
            pairs.append({"a": first, "b": second, "diff": interval(diff)})
    return {"boards": len(rows), "per_bot": per_bot, "levels": pairs}


def _group(results: Sequence[TaskResult], kind: str) -> list[list[TaskResult]]:
    boards: dict[int, list[TaskResult]] = {}
    for res in results:
        if res.kind == kind:
            boards.setdefault(res.board, []).append(res)
    return [boards[k] for k in sorted(boards)]


def mode_summary(cfg: Config, boards: Sequence[Sequence[TaskResult]]) -> dict[str, Any]:
    """Overall, per-contract and (games) win-rate comparisons for the boards of one mode."""
    n = cfg.players
    means = [board_means(b, n) for b in boards]
    out = compare([m[None] for m in means if None in m], cfg.bots, cfg.sign)
    contracts: dict[str, Any] = {}
    for c in cfg.game.contracts:
        crows = [m[c.id] for m in means if c.id in m]
        if crows:
            contracts[c.id] = compare(crows, cfg.bots, cfg.sign)
    out["contracts"] = contracts
    if boards and boards[0][0].kind == GAME:
        wins = [win_shares(b, n) for b in boards]
        out["win_rate"] = [interval([w[b] for w in wins]) for b in range(n)]
        out["level_win_rate"] = {lv: interval([_level_mean(w, cfg.bots, lv) for w in wins])
                                 for lv in level_order(cfg.bots)}
    return out


def timing(samples: Sequence[float]) -> dict[str, Any]:
    """Count, mean, median and p95 (nearest rank) of decision times in seconds."""
    xs = sorted(samples)
    if not xs:
        return {"calls": 0, "mean": None, "median": None, "p95": None}
    mid = len(xs) // 2
    median = xs[mid] if len(xs) % 2 else (xs[mid - 1] + xs[mid]) / 2
    p95 = xs[max(0, math.ceil(0.95 * len(xs)) - 1)]
    return {"calls": len(xs), "mean": math.fsum(xs) / len(xs), "median": median, "p95": p95}


def timings(cfg: Config, results: Sequence[TaskResult]) -> dict[str, Any]:
    per_bot: list[list[float]] = [[] for _ in cfg.bots]
    for res in results:
        for seat, ts in enumerate(res.times):
            per_bot[res.seats[seat]].extend(ts)
    per_level = {lv: [t for b, ts in enumerate(per_bot) if cfg.bots[b] == lv for t in ts]
                 for lv in level_order(cfg.bots)}
    return {"per_bot": {cfg.names[b]: timing(ts) for b, ts in enumerate(per_bot)},
            "per_level": {lv: timing(ts) for lv, ts in per_level.items()}}


def summarize(cfg: Config, results: Sequence[TaskResult]) -> dict[str, Any]:
    """Everything the arena reports, JSON-ready (intervals as dicts)."""
    summary: dict[str, Any] = {
        "ruleset": cfg.ruleset, "players": cfg.players, "options": list(cfg.options),
        "seed": cfg.seed, "bots": list(cfg.names), "better": "higher" if cfg.sign > 0 else "lower",
        "definitions": DEFINITIONS, **({"contract": cfg.contract} if cfg.contract else {})}
    for kind, key in ((DEAL, "deals"), (GAME, "games")):
        boards = _group(results, kind)
        if boards:
            summary[key] = _jsonable(mode_summary(cfg, boards))
    summary["timing"] = timings(cfg, results)
    return summary


def _jsonable(obj: Any) -> Any:
    if isinstance(obj, Interval):
        return obj.to_json()
    if isinstance(obj, dict):
        return {k: _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_jsonable(v) for v in obj]
    return obj


DEFINITIONS = {
    "m": "a bot's mean score per hand over every hand it played in one board (deal or game), "
         "all rotations together",
    "mean": "mean of m over boards, ± 1.96·sd/√n (n boards)",
    "edge": "m minus the mean m of the other bots, sign-adjusted so that positive = better",
    "levels": "A vs B: mean m of A's bots minus mean m of B's bots per board, sign-adjusted so that "
              "positive = A (the level listed first) better",
    "win_rate": "share of a game's rotations won by the bot, ties split, averaged over games",
}


# -- report ------------------------------------------------------------------

def _iv(d: dict[str, Any], digits: int = 2, signed: bool = True) -> str:
    half = d["half_width"]
    mean = f"{d['mean']:+.{digits}f}" if signed else f"{d['mean']:.{digits}f}"
    return f"{mean} ± " + ("n/a" if half is None else f"{half:.{digits}f}")


def format_report(summary: dict[str, Any]) -> str:
    """The summary as text for a terminal or a closing note."""
    lines: list[str] = []
    if "so_far" in summary:
        sf = summary["so_far"]
        done = [f"{sf[k]} of {sf['of_' + k]} {k}" for k in ("deals", "games") if sf["of_" + k]]
        lines.append(f"so far ({', '.join(done)} complete in journal {sf['journal']}; nothing played):")
    better = summary["better"]
    unit = "points" if better == "higher" else "penalty points"
    lines.append(f"barbu arena · {summary['ruleset']} rules, {summary['players']} players"
                 + (f", options {','.join(summary['options'])}" if summary["options"] else "")
                 + f" · seed {summary['seed']}")
    lines.append("line-up: " + " ".join(summary["bots"])
                 + f"  (rotation r seats bot b in seat (b + r) mod {summary['players']})")
    lines.append(f"scores are {unit} per hand: {better} is better; every ± is a 95% interval "
                 "(1.96·sd/√n over boards).")
    lines.append("m = a bot's mean per hand over all its hands of one board, all rotations; "
                 "edge = m minus the others' mean m.")
    lines.append("edges and level comparisons are signed so that positive = better "
                 "(for A vs B: A, the level listed first, better).")
    for key, title in (("deals", "Deals"), ("games", "Games")):
        if key in summary:
            lines.append("")
            lines += _mode_lines(summary, summary[key], key, title)
    lines.append("")
    lines += _timing_lines(summary["timing"])
    return "\n".join(lines)


def _mode_lines(summary: dict[str, Any], mode: dict[str, Any], key: str, title: str) -> list[str]:
    n = summary["players"]
    boards = mode["boards"]
    if key == "deals" and "contract" in summary:
        head = (f"{title}: {boards} deals of {summary['contract']} × {n} rotations = {boards * n} "
                f"hands; board k is deal 7k+i of the full match (declarer seat (7k+i) mod {n}), "
                "same cards in every rotation.")
    elif key == "deals":
        head = (f"{title}: {boards} deals × {n} rotations = {boards * n} hands; deal k: declarer "
                f"seat k mod {n}, contract k mod 7 forced, same cards in every rotation.")
    else:
        head = f"{title}: {boards} complete games × {n} rotations; m is per hand over the whole game."
    wide = max(12, *(len(name) + 2 for name in summary["bots"]))  # a plug-in's name is long
    out = [head, f"{'bot':<{wide}}{'mean per hand':>18}{'edge':>18}"
           + ("  win rate" if "win_rate" in mode else "")]
    for b, name in enumerate(summary["bots"]):
        row = mode["per_bot"][b]
        line = f"{name:<{wide}}{_iv(row['mean']):>18}{_iv(row['edge']):>18}"
        if "win_rate" in mode:
            line += f"  {_iv(mode['win_rate'][b], 3, signed=False)}"
        out.append(line)
    for lv, rate in mode.get("level_win_rate", {}).items():
        out.append(f"win rate of level {lv}: {_iv(rate, 3, signed=False)} per bot (ties split)")
    for pair in mode["levels"]:
        d = pair["diff"]
        span = "" if d["low"] is None else f"  [{d['low']:+.2f}, {d['high']:+.2f}]"
        out.append(f"{pair['a']} vs {pair['b']}: {_iv(d)}{span} per hand over {d['n']} {key} "
                   f"(positive = {pair['a']} better)")
    out += _contract_lines(summary, mode)
    return out


def _contract_lines(summary: dict[str, Any], mode: dict[str, Any]) -> list[str]:
    bots = summary["bots"]
    pairs = [f"{p['a']} vs {p['b']}" for p in mode["levels"]]
    # a column is as wide as its figures or its name (a policy:PATH level has a long one), plus a gap
    wide = [max(17, len(b) + 2) for b in bots]
    pair_wide = [max(20, len(p) + 2) for p in pairs]
    out = ["per contract (mean per hand; last columns: positive = first level better):",
           f"{'contract':<12}{'n':>4}" + "".join(f"{b:>{w}}" for b, w in zip(bots, wide, strict=True))
           + "".join(f"{p:>{w}}" for p, w in zip(pairs, pair_wide, strict=True))]
    for cid, cm in mode["contracts"].items():
        line = f"{cid:<12}{cm['boards']:>4}" + "".join(
            f"{_iv(r['mean'], 1):>{w}}" for r, w in zip(cm["per_bot"], wide, strict=True))
        line += "".join(f"{_iv(p['diff'], 1):>{w}}" for p, w in zip(cm["levels"], pair_wide, strict=True))
        out.append(line)
    return out


def _timing_lines(tm: dict[str, Any]) -> list[str]:
    out = ["decision time per bot.act call, milliseconds:",
           f"{'':<14}{'calls':>8}{'mean':>10}{'median':>10}{'p95':>10}"]
    rows = list(tm["per_bot"].items()) + [(f"level {k}", v) for k, v in tm["per_level"].items()]
    first = max(14, *(len(name) + 1 for name, _ in rows))
    out[1] = f"{'':<{first}}" + out[1][14:]
    for name, t in rows:
        line = f"{name:<{first}}{t['calls']:>8}"
        if t["calls"]:
            line += "".join(f"{1000 * t[k]:>10.2f}" for k in ("mean", "median", "p95"))
        out.append(line)
    return out


# -- progress ----------------------------------------------------------------

class Progress:
    """A Rich progress bar on stderr when Rich is installed, else a plain stderr line; or nothing."""

    def __init__(self, total: int, quiet: bool) -> None:
        self.total, self.count, self.quiet = total, 0, quiet
        self.start = time.monotonic()
        self._bar: Any = None
        self._task: Any = None

    def __enter__(self) -> Progress:
        if self.quiet or not sys.stderr.isatty():
            return self
        try:
            from rich.console import Console
            from rich.progress import Progress as RichProgress
        except ImportError:
            return self
        self._bar = RichProgress(*RichProgress.get_default_columns(), console=Console(stderr=True))
        self._bar.__enter__()
        self._task = self._bar.add_task("arena: hands", total=self.total)
        return self

    def advance(self, hands: int) -> None:
        self.count += hands
        if self.quiet:
            return
        if self._bar is not None:
            self._bar.update(self._task, advance=hands)
            return
        elapsed = time.monotonic() - self.start
        if sys.stderr.isatty():
            print(f"\rarena: {self.count}/{self.total} hands, {elapsed:.0f} s", end="",
                  file=sys.stderr, flush=True)
        elif self.count * 10 // self.total != (self.count - hands) * 10 // self.total:
            # A log file gets one line per tenth of the match rather than a redrawn bar.
            print(f"arena: {self.count}/{self.total} hands, {elapsed:.0f} s", file=sys.stderr, flush=True)

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._bar is not None:
            self._bar.__exit__(kind, exc, tb)
        elif not self.quiet and sys.stderr.isatty():
            print(file=sys.stderr)


# -- command line ------------------------------------------------------------

HELP = "play duplicate matches between computer players and measure who is better"


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``barbu arena``, in the order its help lists them."""
    bullets = (__doc__ or "").split("\n\n", 2)[-1].replace("``", "")
    p.description = "Duplicate matches between computer players. How a match is built:\n\n" + bullets
    p.formatter_class = argparse.RawDescriptionHelpFormatter
    _add_players(p)
    _add_boards(p)
    _add_running(p)
    _add_output(p)


def _add_players(p: argparse.ArgumentParser) -> None:
    """Who plays and under which rules."""
    p.add_argument("--bots", required=True,
                   help="comma-separated bot levels, one per seat "
                        f"({', '.join(level_label(n) for n in levels(cheats=True))}, "
                        f"{POLICY}PATH: a network trained by examples/train_policy.py, or "
                        "expert:SECONDS[+bid|+double|+play][+flat][+nosolve][+rules][+solvedom][+lines]"
                        "[+wary|+nowary]: expert with its own budget, in seconds of work, a "
                        "decision, thinking only for those decisions, without inference, without "
                        "exact endings, with rule-of-thumb playouts, solving Dominoes' endings too, "
                        "playing and weighing Dominoes by its lines, reading the others' doubles "
                        "for its card play as well as for its own bets (+wary), or not at all "
                        "(+nowary; +warybets names the default); "
                        "os-mcts:N or os-ismcts:N: OpenSpiel's search with N simulations a decision, "
                        "800 and 400 by default), or your own bot: module:Factory, a factory importable "
                        "here and in the workers, called with a seed, whose bots have act(observation), or "
                        "the name an installed package gives one in the entry-point group barbu.bots; "
                        "e.g. strong,basic,basic,basic or mypkg.bots:MyBot,strong,strong,strong")
    p.add_argument("--rules", choices=("classic", "family"), default="classic",
                   help="rule set (default classic)")
    p.add_argument("--players", type=int, default=None,
                   help="number of players (default: the number of bots; must match it)")
    p.add_argument("--option", action="append", default=[], choices=CLASSIC_OPTIONS, metavar="FLAG",
                   help="classic option flag, repeatable: "
                   + "; ".join(f"{k}: {v}" for k, v in OPTION_HELP.items()))


def _add_boards(p: argparse.ArgumentParser) -> None:
    """What is played: how many deals or games, of which contract, from which seed."""
    p.add_argument("--deals", type=int, default=0, help="number of duplicate deals (single hands)")
    p.add_argument("--games", type=int, default=0, help="number of duplicate complete games")
    p.add_argument("--contract", metavar="ID", default=None,
                   help="deal mode: play only the deals of this contract (its id, e.g. no-last-two); "
                        "board k is deal 7k+i of the full match")
    p.add_argument("--seed", type=int, default=1, help="seed of the match (default 1)")


def _add_running(p: argparse.ArgumentParser) -> None:
    """Where the boards are played, and the journal that lets a stopped match carry on."""
    p.add_argument("--jobs", type=int, default=None,
                   help="worker processes (default 1; 2 for the local cluster of --cluster)")
    p.add_argument("--cluster", nargs="?", const=LOCAL, default=None, metavar="ADDRESS",
                   help="play on a Dask cluster: the scheduler at ADDRESS (tcp://host:8786), or "
                        "without ADDRESS a local cluster of --jobs workers (needs barbu[arena-cluster])")
    p.add_argument("--cluster-timeout", type=float, default=CONNECT_TIMEOUT, metavar="SECONDS",
                   help=f"how long to wait for the scheduler and a worker (default {CONNECT_TIMEOUT:g})")
    p.add_argument("--journal", metavar="FILE", default=None,
                   help="append every finished board to FILE and, started again with the same "
                        "FILE and arguments, play only what it lacks")
    p.add_argument("--so-far", action="store_true",
                   help="play nothing: print the summary of the first boards the --journal FILE "
                        "of this match holds complete, even while a run is writing it")


def _add_output(p: argparse.ArgumentParser) -> None:
    """What the match writes and shows."""
    p.add_argument("--out", metavar="DIR", default=None,
                   help="folder of the records (default ./arena-records/<timestamp>)")
    p.add_argument("--no-records", action="store_true", help="write no records")
    p.add_argument("--json", metavar="FILE", default=None, help="also save the summary as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def config_of(args: argparse.Namespace) -> Config:
    """Check the arguments and build the match; ArenaError says what is wrong."""
    # A player's name for a level (hard) stands for its technical one (strong), which the match,
    # its records and its journal keep, so that a run named either way is the same run.
    bots = levels_named(args.bots)
    known = levels(cheats=True)
    for b in bots:
        if b.startswith(POLICY):
            _check_policy(b)
        elif b.startswith(EXPERT) or b.startswith(SEARCHES) or (b not in known and is_import_path(b)):
            try:
                make_bot(b)  # a plug-in is made here once: a broken one is refused before any play
            except ValueError as e:
                raise ArenaError(str(e)) from None
        elif b not in known:
            raise ArenaError(f"unknown bot level {b!r} (one of "
                             f"{', '.join(level_label(n) for n in known)}, "
                             f"{POLICY}PATH, expert:SECONDS+PART, os-mcts:N, os-ismcts:N, or a "
                             "plug-in's module:Factory)")
    if args.players is not None and args.players != len(bots):
        raise ArenaError(f"--players {args.players} but {len(bots)} bots in --bots")
    if args.deals < 0 or args.games < 0 or args.deals + args.games == 0:
        raise ArenaError("give --deals N and/or --games G (positive)")
    if args.jobs is None:
        args.jobs = 2 if args.cluster == LOCAL else 1
    if args.jobs < 1:
        raise ArenaError("--jobs must be at least 1")
    if args.cluster_timeout <= 0:
        raise ArenaError("--cluster-timeout must be positive")
    cfg = Config(bots, args.rules, tuple(sorted(set(args.option))), args.seed,
                 None if args.no_records else (args.out or _default_out(args.journal)), args.contract)
    try:
        cfg.game  # noqa: B018 — Game checks the player count and the options
    except ValueError as e:
        raise ArenaError(str(e)) from e
    if args.contract is not None:
        ids = [c.id for c in cfg.game.contracts]
        if args.contract not in ids:
            raise ArenaError(f"--contract {args.contract!r} is not a contract of the {args.rules} "
                             f"table (one of {', '.join(ids)})")
        if args.games:
            raise ArenaError("--contract plays deals only: it cannot go with --games")
    return cfg


def _check_policy(level: str) -> None:
    """A ``policy:PATH`` level whose network cannot be loaded is refused before any play."""
    try:
        make_bot(level)
    except (OSError, ValueError, KeyError, ImportError) as e:
        raise ArenaError(f"cannot load {level!r}: {e}") from e


def _default_out(journal: str | None = None) -> str:
    """A new timestamped folder; beside a journal, one named after it, so that a resumed run
    writes its records with those of the run it goes on from."""
    if journal is not None:
        beside = Path(journal).with_suffix(".records")
        return str(beside if beside != Path(journal) else beside.with_name(beside.name + ".d"))
    base = Path("arena-records") / time.strftime("%Y%m%d-%H%M%S")
    path, i = base, 1
    while path.exists():
        i += 1
        path = base.with_name(f"{base.name}-{i}")
    return str(path)


def run_match(cfg: Config, deals: int, games: int, jobs: int = 1, quiet: bool = True, *,
              cluster: str | None = None, journal: str | None = None,
              timeout: float = CONNECT_TIMEOUT) -> dict[str, Any]:
    """Play a whole match (what ``journal`` holds already aside) and return its summary."""
    tasks = tasks_of(cfg.players, deals, games)
    total = cfg.players * (deals + games * cfg.game.num_hands)
    try:
        with Progress(total, quiet) as bar, Journal(journal, journal_header(cfg, deals, games)) as jr:
            before = journaled(jr, tasks)
            if before:  # said even with --quiet: a log should show that a run went on
                print(f"barbu arena: {len(before)} of {len(tasks)} boards × rotations already in "
                      f"journal {journal}, playing the other {len(tasks) - len(before)}",
                      file=sys.stderr, flush=True)
            for res in before.values():
                bar.advance(len(res.hands))
            todo = [t for t in tasks if t not in before]
            fresh = run_tasks(cfg, todo, jobs, bar.advance, cluster=cluster, timeout=timeout,
                              finished=lambda res: jr.append(res.to_json()))
    except JournalError as e:
        raise ArenaError(str(e)) from None
    done = before | dict(zip(todo, fresh, strict=True))
    summary = summarize(cfg, [done[t] for t in tasks])
    summary["records"] = cfg.out
    return summary


def so_far(cfg: Config, deals: int, games: int, journal: str) -> dict[str, Any]:
    """The summary of the boards a journal holds complete, the first ones of each mode in order,
    as a run of that many would print it; nothing is played and the journal is not taken, so a
    run still writing it goes on undisturbed."""
    try:
        found = [TaskResult.from_json(e) for e in read_entries(journal, journal_header(cfg, deals, games))]
    except JournalError as e:
        raise ArenaError(str(e)) from None
    except (KeyError, TypeError, ValueError) as e:
        raise ArenaError(f"journal {journal} has an entry that is not a result: {e!r}") from None
    by_task = {r.task: r for r in found}
    counts = {}
    for kind, planned in ((DEAL, deals), (GAME, games)):
        k = 0
        while k < planned and all((kind, k, r) in by_task for r in range(cfg.players)):
            k += 1
        counts[kind] = k
    tasks = tasks_of(cfg.players, counts[DEAL], counts[GAME])
    summary = summarize(cfg, [by_task[t] for t in tasks])
    summary["so_far"] = {"journal": journal, "deals": counts[DEAL], "games": counts[GAME],
                         "of_deals": deals, "of_games": games}
    return summary


def journal_header(cfg: Config, deals: int, games: int) -> dict[str, Any]:
    """What makes a match: a journal resumes only the match it was started for."""
    return {"journal": "barbu arena", "ruleset": cfg.ruleset, "players": cfg.players,
            "options": list(cfg.options), "bots": list(cfg.bots), "seed": cfg.seed,
            "deals": deals, "games": games, **({"contract": cfg.contract} if cfg.contract else {})}


def journal_deals(path: str | Path) -> tuple[Config, dict[int, list[TaskResult]]]:
    """A deal-mode journal, read without taking it (a run may be writing it): its match, and the
    deals it holds complete (every rotation), by each deal's number in the full match (a
    ``--contract`` run's board k is deal 7k + i)."""
    try:
        with Path(path).open(encoding="utf-8") as f:
            header: dict[str, Any] = json.loads(f.readline())
        cfg = Config(tuple(header["bots"]), header["ruleset"], tuple(header["options"]), header["seed"],
                     contract=header.get("contract"))
        found = [TaskResult.from_json(e) for e in read_entries(path, header) if e["kind"] == DEAL]
    except (OSError, KeyError, TypeError, ValueError) as e:
        raise JournalError(f"journal {path} is not an arena journal: {e!r}") from None
    boards: dict[int, list[TaskResult]] = {}
    for res in found:
        boards.setdefault(res.board, []).append(res)
    return cfg, {cfg.deal_number(b): rs for b, rs in boards.items() if len(rs) == cfg.players}


def deal_edge(cfg: Config, results: Sequence[TaskResult], bot: int) -> float:
    """Bot ``bot``'s edge on one deal (all its rotations), signed as the arena prints it
    (positive better)."""
    row = board_means(results, cfg.players)[None]
    edge: float = compare([row], cfg.bots, cfg.sign)["per_bot"][bot]["edge"].mean
    return edge


def journaled(journal: Journal, tasks: Sequence[Task]) -> dict[Task, TaskResult]:
    """The results a journal holds, by task."""
    wanted = set(tasks)
    try:
        found = [TaskResult.from_json(e) for e in journal.entries]
    except (KeyError, TypeError, ValueError) as e:
        raise JournalError(f"journal {journal.path} has an entry that is not a result: {e!r}") from None
    stray = [r.task for r in found if r.task not in wanted]
    if stray:
        raise JournalError(f"journal {journal.path} holds {stray[0]}, not a task of this match")
    return {r.task: r for r in found}


def played(args: argparse.Namespace) -> tuple[Config, dict[str, Any]]:
    """The match the arguments describe and its summary (what ``--json`` saves); ArenaError."""
    cfg = config_of(args)
    if args.so_far:
        if args.journal is None:
            raise ArenaError("--so-far reads a run's journal: give it with --journal FILE")
        summary = so_far(cfg, args.deals, args.games, args.journal)
        cfg = dataclasses.replace(cfg, out=None)
    else:
        summary = run_match(cfg, args.deals, args.games, args.jobs, args.quiet, cluster=args.cluster,
                            journal=args.journal, timeout=args.cluster_timeout)
    summary["jobs"] = args.jobs
    if args.cluster is not None:
        summary["cluster"] = args.cluster or "local"
    return cfg, summary


def main(args: argparse.Namespace) -> int:
    try:
        cfg, summary = played(args)
    except ArenaError as e:
        print(f"barbu arena: {e}", file=sys.stderr)
        return 2
    print(format_report(summary))
    if cfg.out is not None:
        print(f"records: {cfg.out}")
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=1, ensure_ascii=False) + "\n",
                                   encoding="utf-8")
    return 0


BotName: TypeAlias = str | Callable[[int | None], Any]


def match(bots: Sequence[BotName], *, rules: str = "classic", players: int | None = None,
          deals: int = 0, games: int = 0, seed: int = 1, jobs: int = 1, options: Sequence[str] = (),
          contract: str | None = None, cluster: str | None = None, records: str | None = None,
          journal: str | None = None, quiet: bool = True) -> dict[str, Any]:
    """Play a duplicate match and return its summary, the dictionary ``barbu arena --json`` saves.

    ``bots`` are one per seat: level names (``strong``), ``module:Factory`` import paths, names
    of the ``barbu.bots`` entry-point group, or factories themselves (a Bot subclass), which are
    named by their import path, as only names travel to the worker processes (``jobs`` above 1)
    or to a Dask cluster (``cluster``: an address, or "" for a local one). ``records`` is the
    folder of the records (None: none are written). ArenaError says what is wrong.

    >>> summary = match(["basic", "random", "random", "random"], deals=2)
    >>> summary["bots"], summary["deals"]["boards"], sorted(summary["deals"]["per_bot"][0])
    (['0:basic', '1:random', '2:random', '3:random'], 2, ['edge', 'mean'])
    """
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["--bots", ",".join(bot_name(b) for b in bots)])  # the defaults
    vars(args).update(rules=rules, players=players, deals=deals, games=games, seed=seed, jobs=jobs,
                      option=list(options), contract=contract, cluster=cluster, out=records,
                      no_records=records is None, journal=journal, quiet=quiet)
    return played(args)[1]


def bot_name(bot: BotName) -> str:
    """A bot's name for the arena: a name as given, a factory by its import path."""
    if isinstance(bot, str):
        return bot
    module = getattr(bot, "__module__", "")
    if module == "__main__":  # a script's own bot: named by the script, which workers can import
        module = _script_module() or module
    path = f"{module}:{getattr(bot, '__qualname__', '')}"
    if not is_import_path(path):  # a lambda, a local class, an object without a name
        raise ArenaError(f"{bot!r} has no import path (module:name): define it at the top of a module")
    return path


def _script_module() -> str | None:
    """The name under which the running script imports (its folder is first on sys.path)."""
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    if spec is not None:  # python -m mypkg.script
        return str(spec.name)
    path = getattr(main, "__file__", None)
    if path is None or Path(sys.path[0] or ".").resolve() != Path(path).resolve().parent:
        return None
    return Path(path).stem


def command_line(argv: Sequence[str] | None = None) -> int:
    """``python -m barbu.tools.arena``: the same as ``barbu arena``."""
    parser = argparse.ArgumentParser(prog="python -m barbu.tools.arena")
    add_arguments(parser)
    return main(parser.parse_args(argv))


if __name__ == "__main__":
    # Through the module's own name, which is what the worker processes of --jobs import.
    from barbu.tools import arena

    sys.exit(arena.command_line())
