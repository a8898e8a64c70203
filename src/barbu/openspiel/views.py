"""What one seat sees, as OpenSpiel's observation and information-state strings.

Both are written from :meth:`State.observe` alone, so they can hold nothing the
seat may not see. The information state is the seat's whole memory of the hand
(every decision made in it, in order) with earlier hands as their scores; the
observation is the table as it is now (the trick in progress, the last trick,
the cards each seat has taken).

>>> from barbu.engine.game import Game
>>> from barbu.engine.state import State
>>> s = State(Game.classic(), seed=3, first_declarer=0)
>>> _ = s.deal_random()
>>> info_string(s.observe(0)).splitlines()[0]
'seat 0 · hand 1 · choose · declarer 0 · to play 0'
"""

from __future__ import annotations

from barbu.engine.cards import RANKS, SUITS, mask_str
from barbu.engine.observation import Observation


def info_string(obs: Observation, private: bool = True, public: bool = True) -> str:
    """The seat's information state: :func:`observation_string` and the hand's decisions."""
    lines = _common(obs, private, public)
    if public:
        g = obs.game
        lines.append("play: " + " ".join(f"{s}:{g.action_str(a)}" for s, a in obs.history))
    return "\n".join(lines)


def observation_string(obs: Observation, private: bool = True, public: bool = True) -> str:
    """What the seat sees on the table now."""
    lines = _common(obs, private, public)
    if public:
        lines.append("trick: " + _pairs(obs.trick) + " · last: " + _pairs(obs.last_trick))
        lines.append("taken: " + " | ".join(mask_str(m) for m in obs.captured))
    return "\n".join(lines)


def _common(obs: Observation, private: bool, public: bool) -> list[str]:
    lines = [f"seat {obs.seat}"]
    if public:
        lines[0] += (f" · hand {obs.hand_no + 1} · {obs.phase.name.lower()} · declarer {obs.declarer}"
                     + (f" · to play {obs.current}" if obs.current >= 0 else ""))
        lines.append(_contract(obs))
        lines.append("scores: " + " ".join(map(str, obs.totals))
                     + " · owed: " + " ".join(map(str, obs.owed))
                     + " · left: " + " ".join(f"{m:b}" for m in obs.available))
    if private:
        lines.append("hand: " + mask_str(obs.hand))
    return lines


def _contract(obs: Observation) -> str:
    c = obs.contract
    text = f"contract {c.id if c else '-'}"
    if obs.trump is not None:
        text += f" · trump {SUITS[obs.trump]}"
    if obs.start_rank is not None:
        text += f" · rank {RANKS[obs.start_rank]}"
    if obs.doubles:
        text += " · doubles " + " ".join(f"{a}>{b}" for a, b in obs.doubles)
    if obs.set_aside:
        text += " · set aside " + mask_str(obs.set_aside)
    return text


def _pairs(cards: tuple[tuple[int, int], ...]) -> str:
    return " ".join(f"{s}:{mask_str(1 << c)}" for s, c in cards) or "-"
