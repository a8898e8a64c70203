"""End-to-end tests of ``barbu play``: the real console script, driven through pipes.

The driver reads the screen until a prompt (a line ending in ``[choices] > ``), then
answers from the choices printed there, the way a player reading the screen would.
"""

from __future__ import annotations

import json
import os
import re
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from barbu.engine.cards import card_str, parse_card

BARBU = str(Path(sys.executable).parent / "barbu")
PROMPT = re.compile(r"(?P<question>[^\n]*) \[(?P<choices>[^\]\n]*)\](?P<default> \(Enter = [^)\n]*\))? > \Z")
ASCII = str.maketrans({"♠": "s", "♥": "h", "♦": "d", "♣": "c"})


@dataclass
class Prompt:
    question: str
    choices: list[str]
    has_default: bool
    screen: str  # everything printed so far
    number: int  # how many prompts came before this one

    @property
    def first_choice(self) -> str:
        return self.choices[0]


Answer = Callable[[Prompt], "str | None"]  # None closes stdin (end of input)


@dataclass
class Run:
    status: int
    out: str
    err: str
    prompts: list[Prompt] = field(default_factory=list)

    @property
    def refusals(self) -> list[str]:
        return [line for line in self.out.splitlines() if line.startswith("✗")]


def play(args: list[str], answer: Answer, cwd: Path, *, interrupt_at: int | None = None,
         timeout: float = 60) -> Run:
    """Run ``barbu play ARGS`` and answer every prompt with ``answer``."""
    env = {**os.environ, "COLUMNS": "100", "PYTHONIOENCODING": "utf-8"}
    # A background job of a non-interactive shell starts with SIGINT ignored, and Python keeps it so:
    # the child gets the default back, so that Ctrl-C reaches it as it would at a terminal.
    proc = subprocess.Popen([BARBU, "play", *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=cwd, env=env,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    fd = proc.stdout.fileno()
    raw = b""
    prompts: list[Prompt] = []
    deadline = time.monotonic() + timeout
    while True:
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            proc.kill()
            pytest.fail("barbu play stopped answering; last output:\n" + raw.decode()[-3000:])
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        raw += chunk
        m = PROMPT.search(raw[-3000:].decode("utf-8", "replace"))  # the tail: a long game stays fast
        if not m:
            continue
        prompt = Prompt(m["question"].strip(), m["choices"].replace(",", " ").split(),
                        bool(m["default"]), raw.decode("utf-8", "replace"), len(prompts))
        prompts.append(prompt)
        if interrupt_at == prompt.number:
            proc.send_signal(signal.SIGINT)
            continue
        reply = answer(prompt)
        if reply is None:
            proc.stdin.close()
        else:
            proc.stdin.write((reply + "\n").encode())
            proc.stdin.flush()
    status = proc.wait(timeout=10)
    err = proc.stderr.read().decode()
    return Run(status, raw.decode(), err, prompts)


def card_forms(choice: str, k: int) -> str:
    """A card shown as ``10♦`` typed in one of the ways players type it."""
    ascii_form = choice.translate(ASCII)
    forms = [choice, ascii_form, ascii_form.upper().replace("10", "T"), " ".join(ascii_form),
             choice[-1] + choice[:-1]]
    return forms[k % len(forms)]


def simple_player(contract: str | None = None) -> Answer:
    """Take the default when there is one, else the first choice (cards typed in varied forms)."""

    def answer(p: Prompt) -> str:
        if p.question.startswith("Choose a contract") and contract is not None:
            return contract
        if p.has_default:
            return ""
        first = p.first_choice
        return card_forms(first, p.number) if first[-1] in "♠♥♦♣" else first

    return answer


def replay_json(path: Path) -> dict[str, object]:
    done = subprocess.run([BARBU, "replay", str(path), "--json"], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout)
    return result


def assert_clean(run: Run) -> None:
    assert "Traceback" not in run.out + run.err, run.out[-3000:] + run.err


@pytest.mark.parametrize(("args", "contract"), [
    (["--seed", "5"], None),  # a computer player declares: you double and redouble
    (["--seed", "4"], "dominoes"),  # you declare Dominoes and name the starting rank
    (["--seed", "4", "--option", "overtrump"], "trumps"),
    (["--rules", "family", "--players", "3", "--seed", "5"], "réussite"),
    (["--rules", "family", "--players", "5", "--seed", "4", "--bot", "basic"], "salad"),
])
def test_one_full_hand(tmp_path: Path, args: list[str], contract: str | None) -> None:
    record = tmp_path / "game.json"
    bot = [] if "--bot" in args else ["--bot", "random"]
    run = play([*args, *bot, "--hands", "1", "--save", str(record)], simple_player(contract), tmp_path)
    assert_clean(run)
    assert run.status == 0, run.out[-2000:] + run.err
    assert run.refusals == [], "an answer taken from the screen was refused"
    assert "Result of hand 1" in run.out and "Score sheet" in run.out
    assert "Stopped after 1 of" in run.out
    lines = run.out.splitlines()
    assert str(record) in lines[3] and str(record) in lines[-1]
    result = replay_json(record)
    hands = result["hands"]
    assert isinstance(hands, list) and len(hands) == 1
    if contract is not None:
        assert hands[0]["contract"] == {"réussite": "reussite"}.get(contract, contract)
    played = [p for p in run.prompts if p.question in ("Your card", "You cannot place a card")]
    assert played, "the human never played a card"


def test_screen_shows_hand_trick_and_doubles(tmp_path: Path) -> None:
    run = play(["--seed", "5", "--hands", "1", "--bot", "random", "--save", str(tmp_path / "g.json")],
               simple_player(), tmp_path)
    first_card = next(p for p in run.prompts if p.question == "Your card")
    screen = first_card.screen[first_card.screen.rfind("Hand 1 of 28"):]
    assert "Your hand (13 cards)" in screen
    suit_lines = [line for line in screen.splitlines()
                  if re.match(r"  [♠♥♦♣] (spades|hearts|diamonds|clubs)", line)]
    assert [line[2] for line in suit_lines] == ["♠", "♥", "♦", "♣"]
    starred = {f"{tok.rstrip('*')}{line[2]}" for line in suit_lines for tok in line[13:].split()
               if tok.endswith("*")}
    assert starred == set(first_card.choices)
    assert re.search(r"Trick 1 of 13: \S+ [0-9JQKA]+[♠♥♦♣]", screen)
    assert "Doubles:" in screen or "does not double" in run.out


def test_mistakes_get_a_message_and_a_new_prompt(tmp_path: Path) -> None:
    contract_answers = ["qs", "9", "no", "no queens"]
    card_answers = ["zz", "not held", "double 1", "help", "sheet", "last"]
    tried_follow: list[int] = []

    def answer(p: Prompt) -> str | None:
        if p.question.startswith("Choose a contract"):
            return contract_answers.pop(0)
        if p.question == "Your card" and card_answers:
            reply = card_answers.pop(0)
            if reply == "not held":
                held = held_cards(p.screen)
                reply = card_str(next(c for c in range(52) if c not in held))
            return reply
        if tried_follow:
            return None  # end of input in the middle of the hand
        if p.question == "Your card":
            legal = {parse_card(x) for x in p.choices}
            illegal = [c for c in held_cards(p.screen) if c not in legal]
            if illegal:
                tried_follow.append(illegal[0])
                return card_str(illegal[0])
        return simple_player()(p)

    run = play(["--seed", "4", "--hands", "1", "--bot", "random", "--save", str(tmp_path / "g.json")],
               answer, tmp_path)
    assert_clean(run)
    assert run.status == 0
    refusals = run.refusals
    assert refusals[0] == "✗ it is time to choose a contract, not 'QS'"
    assert "there is no contract 9" in refusals[1]
    assert "could be" in refusals[2] and "No Queens" in refusals[2]
    assert "is not a card" in refusals[3]
    assert "you do not hold" in refusals[4]
    assert refusals[5] == "✗ it is time to play, not 'double 1'"
    assert tried_follow and "you must follow suit" in refusals[6], refusals
    assert len(refusals) == 7
    questions = [p.question for p in run.prompts]
    assert questions[:4] == ["Choose a contract"] * 4
    first_card = questions.index("Your card")
    assert questions[first_card:first_card + 7] == ["Your card"] * 7  # asked again after each
    assert "Commands: help" in run.out and "No hand has been finished yet" in run.out
    assert "No trick has been completed yet" in run.out
    assert "End of input. The game is saved in" in run.out


def held_cards(screen: str) -> list[int]:
    """The cards of the last 'Your hand' block on the screen."""
    block = screen[screen.rfind("Your hand"):].splitlines()[1:5]
    cards = []
    for line in block:
        suit = line[2]
        for tok in line[13:].split():
            if tok != "—":
                cards.append(parse_card(tok.rstrip("*") + suit))
    return cards


def test_end_of_input_saves_and_resume_continues(tmp_path: Path) -> None:
    record = tmp_path / "g.json"
    cards_played: list[str] = []

    def four_cards(p: Prompt) -> str | None:
        if p.question == "Your card":
            if len(cards_played) == 4:
                return None
            cards_played.append(p.first_choice)
        return simple_player("no-tricks")(p)

    first = play(["--seed", "4", "--bot", "random", "--save", str(record)], four_cards, tmp_path)
    assert_clean(first)
    assert first.status == 0 and "End of input. The game is saved in" in first.out
    saved = json.loads(record.read_text())
    partial = replay_json(record)
    assert partial["hands"][0].get("finished") is False  # type: ignore[index]
    actions_before = saved["hands"][0]["actions"]
    assert actions_before

    second = play(["--resume", str(record), "--hands", "1", "--bot", "random"], simple_player(), tmp_path)
    assert_clean(second)
    assert second.status == 0
    assert f"Resuming {record}" in second.out and "You sit at seat 1" in second.out
    resumed = json.loads(record.read_text())
    assert resumed["hands"][0]["deal"] == saved["hands"][0]["deal"]
    assert resumed["hands"][0]["actions"][:len(actions_before)] == actions_before
    result = replay_json(record)
    assert len(result["hands"]) == 1 and "finished" not in result["hands"][0]  # type: ignore[arg-type,index]


def test_quit_saves_and_names_the_file(tmp_path: Path) -> None:
    run = play(["--seed", "7", "--bot", "random"], lambda p: "quit", tmp_path)
    assert run.status == 0
    files = list((tmp_path / "records").glob("barbu-classic-*-7.json"))
    assert len(files) == 1
    path = str(Path("records") / files[0].name)
    assert path in run.out.splitlines()[3] and f"barbu play --resume {path}" in run.out
    assert "deals it again with the same cards" in run.out
    assert replay_json(files[0])["hands"] == []
    resumed = play(["--resume", str(files[0]), "--hands", "1", "--bot", "random"], simple_player(), tmp_path)
    assert resumed.status == 0
    # The same seed deals the same first hand: the human holds the same cards.
    first_hand = held_cards(run.prompts[0].screen)
    assert held_cards(resumed.prompts[0].screen) == first_hand


def test_ctrl_c_saves_the_game(tmp_path: Path) -> None:
    record = tmp_path / "g.json"
    run = play(["--seed", "5", "--bot", "random", "--save", str(record)], simple_player(), tmp_path,
               interrupt_at=3)
    assert run.status == 130
    assert "Interrupted. The game is saved in" in run.out
    assert "Traceback" not in run.err
    assert record.exists()
    replay_json(record)


def test_watch_two_hands(tmp_path: Path) -> None:
    record = tmp_path / "w.json"
    done = subprocess.run([BARBU, "play", "--watch", "--hands", "2", "--seed", "3", "--bot", "random",
                           "--save", str(record)], capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL, check=False)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "A demonstration: Ann, Ben, Cleo, Dan" in out
    assert out.count("Score sheet") == 2 and "Stopped after 2 of 28 hands" in out
    assert "Traceback" not in out + done.stderr
    assert len(replay_json(record)["hands"]) == 2  # type: ignore[arg-type]


def test_bad_arguments_are_refused_cleanly(tmp_path: Path) -> None:
    for args in (["--players", "5"], ["--rules", "family", "--option", "overtrump"],
                 ["--bot", "nobody"], ["--resume", str(tmp_path / "missing.json")]):
        done = subprocess.run([BARBU, "play", *args], capture_output=True, text=True, timeout=60,
                              stdin=subprocess.DEVNULL, cwd=tmp_path, check=False)
        assert done.returncode in (1, 2), args
        assert "barbu play" in done.stderr.splitlines()[-1], done.stderr  # argparse prints usage first
        assert "Traceback" not in done.stderr, done.stderr


def test_a_whole_game_ends_with_the_winner(tmp_path: Path) -> None:
    record = tmp_path / "whole.json"
    done = subprocess.run([BARBU, "play", "--watch", "--rules", "family", "--players", "3", "--seed", "2",
                           "--bot", "basic", "--save", str(record)], capture_output=True, text=True,
                          timeout=120, stdin=subprocess.DEVNULL, check=False)
    assert done.returncode == 0, done.stderr
    result = replay_json(record)
    assert result["complete"] is True and len(result["hands"]) == 21  # type: ignore[arg-type]
    totals = result["totals"]
    assert isinstance(totals, list)
    names = ["Ann", "Ben", "Cleo"]
    winner = names[totals.index(min(totals))]
    assert f"Winner: {winner} (lowest total)" in done.stdout
    assert f"{winner} wins with" in done.stdout.split("Game over")[1]
    # Resuming a finished game shows where it ended and changes nothing.
    again = subprocess.run([BARBU, "play", "--resume", str(record)], capture_output=True, text=True,
                           timeout=60, stdin=subprocess.DEVNULL, check=False)
    assert again.returncode == 0 and "Game over" in again.stdout and "Score sheet" in again.stdout
    assert replay_json(record) == result
