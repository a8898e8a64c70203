"""Unit tests of the terminal game: reading what players type, and what the screen shows."""

from __future__ import annotations

import argparse
import io
import json
import re
from pathlib import Path

import pytest
from rich.console import Console, RenderableType

from barbu.bots import make_bot
from barbu.engine.cards import bits, mask_of, parse_card, parse_cards, sorted_cards
from barbu.engine.game import CONTRACT, DOUBLE, PASS, Game
from barbu.engine.record import replay
from barbu.engine.state import Phase, State
from barbu.tui import app, render
from barbu.tui.parsing import (
    InputError,
    command_of,
    parse_contract,
    parse_play,
    parse_seats,
    parse_start_rank,
    parse_trump,
    read_card,
)

NAMES = ["You", "Ben", "Cleo", "Dan"]


def plain(*items: RenderableType) -> str:
    out = io.StringIO()
    console = Console(file=out, width=100, color_system=None, force_terminal=False)
    for item in items:
        console.print(item)
    return out.getvalue()


# -- reading input ---------------------------------------------------------------

@pytest.mark.parametrize("text", ["qs", "QS", "Q♠", "q ♠", "♠Q", "s q", "queen of spades", " Q S "])
def test_queen_of_spades_in_every_form(text: str) -> None:
    assert read_card(text) == parse_card("QS")


@pytest.mark.parametrize("text", ["10h", "th", "T H", "10 ♥", "♥10", "ten of hearts"])
def test_ten_of_hearts_in_every_form(text: str) -> None:
    assert read_card(text) == parse_card("TH")


@pytest.mark.parametrize("text", ["zz", "1h", "q", "11s", "queen of clovers", ""])
def test_not_a_card(text: str) -> None:
    with pytest.raises(InputError, match="not a card"):
        read_card(text)


def test_a_rank_alone_names_the_one_playable_card() -> None:
    hand = parse_cards("9S 9D 4C")
    nines = [parse_card("9S"), parse_card("9D")]
    assert parse_play("4", hand, [parse_card("4C")]) == parse_card("4C")
    assert parse_play("9", hand, [nines[1]]) == nines[1]
    with pytest.raises(InputError, match="which one: 9♠ or 9♦"):
        parse_play("9", hand, nines)
    # A held card that is not playable is returned, for the engine to say why it is refused.
    assert parse_play("4", hand, nines) == parse_card("4C")
    with pytest.raises(InputError, match="no K you can play"):
        parse_play("k", hand, nines)


@pytest.mark.parametrize("text", ["pass", "PASS", "p", "knock", "stop"])
def test_pass_words(text: str) -> None:
    assert parse_play(text, 0, [PASS]) == PASS


def test_contract_by_number_id_name_and_prefix() -> None:
    g = Game.classic()
    every = list(range(7))
    assert parse_contract("2", g, every) == 1
    assert parse_contract("no-queens", g, every) == 1
    assert parse_contract("No Queens", g, every) == 1
    assert parse_contract("queens", g, every) == 1
    assert parse_contract("no-q", g, every) == 1
    assert parse_contract("dom", g, every) == 6
    assert parse_contract("barbu", g, every) == 4
    assert parse_contract("Trumps", g, every) == 5
    with pytest.raises(InputError, match="could be No Tricks, No Queens, No Hearts, No Last Two"):
        parse_contract("no", g, every)
    with pytest.raises(InputError, match="there is no contract 8"):
        parse_contract("8", g, every)
    with pytest.raises(InputError, match="no contract is called"):
        parse_contract("grand slam", g, every)


def test_contract_prefix_prefers_the_contracts_still_allowed() -> None:
    classic = Game.classic()
    assert parse_contract("no", classic, [1, 5, 6]) == 1
    with pytest.raises(InputError, match="could be No Tricks, No Queens"):
        parse_contract("no", classic, [0, 1])
    # A contract already used is still recognised, so that the engine can say it is used.
    assert parse_contract("no-tricks", classic, [5]) == 0
    g = Game.family(4)
    assert parse_contract("reussite", g, []) == g.contract_index("reussite")
    assert parse_contract("RÉUSSITE", g, []) == g.contract_index("reussite")


def test_trump_and_starting_rank() -> None:
    assert [parse_trump(t) for t in ("s", "Hearts", "♦", "trump c", "2")] == [0, 1, 2, 3, 1]
    assert [parse_start_rank(t) for t in ("J", "jack", "10", "t", "from 8", "rank A")] == [9, 9, 8, 8, 6, 12]
    with pytest.raises(InputError, match="not a suit"):
        parse_trump("x")
    with pytest.raises(InputError, match="not a rank"):
        parse_start_rank("15")


def test_seats_for_doubles() -> None:
    choices = 0b1110
    # Seat numbers count from 1, as the table shows them.
    assert parse_seats("double 2 4", NAMES, choices) == 0b1010
    assert parse_seats("2,4", NAMES, choices) == 0b1010
    assert parse_seats("ben and dan", NAMES, choices) == 0b1010
    assert parse_seats("Cl", NAMES, choices) == 0b0100
    assert parse_seats("all", NAMES, choices) == choices
    assert parse_seats("none", NAMES, choices) == 0
    assert parse_seats("redouble 3", NAMES, choices) == 0b0100
    with pytest.raises(InputError, match="there is no seat 7: seats are 1 to 4"):
        parse_seats("7", NAMES, choices)
    with pytest.raises(InputError, match="there is no seat 0: seats are 1 to 4"):
        parse_seats("0", NAMES, choices)
    with pytest.raises(InputError, match="nobody at the table is called 'zed'"):
        parse_seats("zed", NAMES, choices)
    with pytest.raises(InputError, match="could be Dan or Dana"):
        parse_seats("da", [*NAMES, "Dana"], choices)


def test_commands() -> None:
    assert [command_of(t) for t in ("help", "?", "SHEET", "last", "quit", "exit", "show")] == [
        "help", "help", "sheet", "last", "quit", "quit", "show"]
    assert command_of("q") is None  # a queen, not a command


# -- what the screen shows ----------------------------------------------------------

def test_hand_lines_one_suit_a_line_highest_first_and_legal_cards_starred() -> None:
    hand = parse_cards("2S AS 10S KH 3D")
    lines = [t.plain for t in render.hand_lines(hand, legal=parse_cards("AS 2S"))]
    assert lines[0].split() == ["♠", "spades", "A*", "10", "2*"]
    assert lines[1].split() == ["♥", "hearts", "K"]
    assert lines[2].split() == ["♦", "diamonds", "3"]
    assert lines[3].split() == ["♣", "clubs", "—"]
    assert "*" not in "".join(t.plain for t in render.hand_lines(hand))


def test_legal_cards_are_also_styled_when_colour_is_on() -> None:
    line = render.hand_lines(parse_cards("AS 2S"), legal=parse_cards("AS"))[0]
    styles = {line.plain[s.start:s.end]: str(s.style) for s in line.spans}
    assert "underline" in styles["A"] and "dim" in styles["2"]


def test_trick_winner() -> None:
    plays = [(1, parse_card("7C")), (2, parse_card("KC")), (3, parse_card("AD")), (0, parse_card("2H"))]
    assert render.trick_winner(plays, None) == 2
    assert render.trick_winner(plays, 1) == 0  # hearts are trumps
    assert render.trick_winner(plays, 2) == 3


def test_status_of_a_trick_game() -> None:
    g = Game.classic()
    state = State(g, seed=3, first_declarer=1)
    state.deal_random()
    state.apply(CONTRACT + g.contract_index("no-queens"))
    while state.phase != Phase.PLAY:
        state.apply(state.legal_actions()[-1])  # everybody doubles everybody
    for _ in range(6):
        state.apply(state.legal_actions()[0])
    obs = state.observe(0)
    text = plain(render.status(obs, NAMES))
    assert "Hand 1 of 28 · Ben (declarer) · No Queens" in text
    assert "Doubles: " in text and "(redoubled)" in text
    assert "Last trick: " in text and f"Trick 2 of 13: {NAMES[obs.leader]}" in text
    for seat in range(4):
        taken = obs.scoring_captured(seat)
        row = next(line for line in text.splitlines()
                   if line.strip("│ ").split()[:2] == [str(seat + 1), NAMES[seat]])
        for c in sorted_cards(taken):
            assert render.card_text(c).plain in row
    # Only this seat's cards are shown.
    for c in range(52):
        if state.hands[1] >> c & 1:
            assert f"{render.card_text(c).plain} " not in text.split("Your hand")[1]


def ben_declares_five_hands_undoubled() -> State:
    """A classic game after five hands in which Ben declares and nobody doubles him."""
    state = State(Game.classic(), seed=3, first_declarer=1)
    for _ in range(5):
        state.deal_random()
        while state.phase != Phase.DEAL:
            state.apply(state.legal_actions()[0])  # no double is the first choice
    return state


def test_compulsory_doubles_are_marked() -> None:
    state = ben_declares_five_hands_undoubled()
    state.deal_random()
    while state.phase != Phase.DOUBLE:
        state.apply(state.legal_actions()[0])
    obs = state.observe(2)
    assert obs.compulsory == (0, 2, 3)
    state.apply(state.legal_actions()[0])  # seat 2 makes its compulsory double
    text = render.doubles_text(state.observe(0), NAMES).plain
    assert text == "Cleo × Ben (compulsory)"


def reussite_opened_by_the_nine_of_hearts() -> State:
    """Family Réussite for 3, 9♠ set aside, just after seat 0 opened with 9♥."""
    g = Game.family(3)
    state = State(g, seed=1, first_declarer=0)
    nine_s, nine_h = parse_card("9S"), parse_card("9H")
    others = [c for c in range(52) if c not in (nine_s, nine_h)]
    hands = [mask_of(cards) for cards in ([nine_h, *others[:16]], others[16:33], others[33:])]
    assert state.deal(hands, 1 << nine_s)
    state.apply(CONTRACT + g.contract_index("reussite"))
    state.apply(nine_h)
    return state


def test_layout_shows_lines_and_set_aside_cards() -> None:
    state = reussite_opened_by_the_nine_of_hearts()
    rows = [t.plain for t in render.layout_lines(state.observe(1))]
    assert rows[0].split() == ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
    assert rows[1].split() == ["♠", *["·"] * 7, "(9)", *["·"] * 5]  # set aside: opens spades
    assert rows[2].split() == ["♥", *["·"] * 7, "9", *["·"] * 5]
    assert rows[3].split()[1:] == rows[4].split()[1:] == ["·"] * 13
    assert "Not open yet: ♦ ♣" in render.layout_note(state.observe(1)).plain


def test_contract_menu_strikes_out_used_contracts() -> None:
    g = Game.family(3)
    state = State(g, seed=1, first_declarer=0)
    while not state.deal_random():
        pass
    obs = state.observe(0)
    text = plain(render.contract_menu(obs))
    assert text.count("(done)") == 0 and "7  Réussite" in text
    assert len(obs.legal) in (6, 7)


# -- the game loop, in process ------------------------------------------------------

class ScriptedStdin(io.StringIO):
    """Lines for the prompts, then an exception in place of the next line."""

    def __init__(self, lines: list[str], then: BaseException) -> None:
        super().__init__("".join(line + "\n" for line in lines))
        self.then = then

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        line = super().readline()
        if not line:
            raise self.then
        return line


def session(tmp_path: Path, stdin: io.StringIO, seed: int = 4, state: State | None = None,
            stop_at: int = 28) -> tuple[app.Session, io.StringIO]:
    out = io.StringIO()
    console = Console(file=out, width=100, color_system=None, force_terminal=False)
    term = app.Terminal(console, stdin, interactive=False, echo=True)
    args = argparse.Namespace(rules="classic", players=4, option=[], seed=seed, watch=False, name="Zoé")
    new_state, names = app.new_game(args)
    bots = {s: make_bot("random", s) for s in (1, 2, 3)}
    return app.Session(term, state or new_state, names, 0, bots, 0.0, tmp_path / "r.json", stop_at), out


def test_a_compulsory_double_is_preselected_and_enforced(tmp_path: Path) -> None:
    state = ben_declares_five_hands_undoubled()
    state.deal_random()
    state.apply(state.game.parse_action("trumps"))
    state.apply(state.game.parse_action("trump S"))
    s, out = session(tmp_path, ScriptedStdin(["none", "3", ""], EOFError()), state=state, stop_at=6)
    s.play([])
    text = out.getvalue()
    assert "Compulsory this hand: Zoé, Cleo, Dan must double Ben" in text
    assert "Doubling Ben is compulsory this hand: you still owe 2 doubles and only 2 of Ben's hands" in text
    # No "none" offered when the double is compulsory; the engine's seat numbers become names.
    assert "Double [2 Ben] (Enter = double Ben) > none" in text
    assert "✗ doubling the declarer (Ben) is compulsory" in text
    assert "✗ in Trumps you may double only the declarer (Ben)" in text
    assert "Zoé doubles Ben (compulsory)." in text


def test_ctrl_c_saves_before_leaving(tmp_path: Path) -> None:
    s, out = session(tmp_path, ScriptedStdin(["no-tricks"], KeyboardInterrupt()))
    assert s.play([]) == 130
    assert "Interrupted. The game is saved in" in out.getvalue()
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc["players"][0] == "Zoé" and doc["hands"][0]["contract"] == "no-tricks"
    assert replay(doc).state.phase == Phase.PLAY


def test_names_in_the_third_person(tmp_path: Path) -> None:
    s, out = session(tmp_path, ScriptedStdin(["2"], EOFError()))
    assert s.play([]) == 0
    text = out.getvalue()
    assert "Zoé declares" in text and "Zoé chooses No Queens" in text
    assert "End of input. The game is saved in" in text


def test_default_record_path() -> None:
    path = app._default_path(Game.family(5), 42)
    assert path.parent == Path("records")
    assert path.name.startswith("barbu-family-") and path.name.endswith("-42.json")


# -- fixes found by a tester ----------------------------------------------------------

def ben_declares_and_is_redoubling() -> State:
    """Ben declares No Tricks; Cleo doubles you, you double Ben, and Ben has just redoubled you."""
    state = State(Game.classic(), seed=11, first_declarer=1)
    state.deal_random()
    state.apply(state.game.parse_action("no-tricks"))
    for line in ("double 0", "double none", "double 1"):  # Cleo, Dan, then you (seats from 0)
        state.apply(state.game.parse_action(line))
    state.apply(state.game.parse_action("redouble 0"))  # Ben answers your double
    assert state.phase == Phase.REDOUBLE and state.current == 0
    return state


def test_the_redouble_prompt_names_only_those_who_doubled_you(tmp_path: Path) -> None:
    s, out = session(tmp_path, ScriptedStdin([], EOFError()), state=ben_declares_and_is_redoubling())
    s.play([])
    text = out.getvalue()
    # Ben's pair towards you is his redouble of your double, not a double of you.
    assert "Cleo doubled you." in text and "Ben doubled you" not in text
    assert "Redouble [3 Cleo, none]" in text


def test_a_seat_number_typed_is_said_back_as_typed(tmp_path: Path) -> None:
    state = State(Game.classic(), seed=11, first_declarer=1)
    state.deal_random()
    state.apply(state.game.parse_action("no-tricks"))
    state.apply(state.game.parse_action("double none"))
    state.apply(state.game.parse_action("double none"))
    s, out = session(tmp_path, ScriptedStdin(["double 5", "double 0"], EOFError()), state=state)
    s.play([])
    text = out.getvalue()
    assert "✗ there is no seat 5: seats are 1 to 4" in text
    assert "✗ there is no seat 0: seats are 1 to 4" in text
    assert "seat 6" not in text and "seat 1 (" not in text


def _help_examples(text: str) -> dict[str, list[str]]:
    """Every example the help text gives, read off the text itself, by what it is for."""
    flat = " ".join(text.split())
    found: dict[str, list[str]] = {}
    cards = re.search(r"Cards: (.*?); a rank alone \((.*?)\)", flat)
    assert cards is not None
    found["card"] = cards.group(1).split(", ")
    found["rank alone"] = cards.group(2).split(", ")
    found["pass"] = ["pass"] if re.search(r"[;.] pass \(", flat) else []
    contracts = re.search(r"Contracts: [^(]*\((.*?)\)", flat)
    assert contracts is not None
    found["contract"] = contracts.group(1).split(", ")
    trumps = re.search(r"Trumps: (.*?) or (.*?)\. ", flat)
    found["trump"] = trumps.group(1).split(", ") + trumps.group(2).split() if trumps else []
    ranks = re.search(r"Starting rank: (.*?)\.", flat)
    found["start rank"] = [w for w in ranks.group(1).split() if w != "…"] if ranks else []
    doubles = re.search(r"Doubles and redoubles: [^(]*\(from 1[^)]*\) or names \((.*?)\), (\w+), or (\w+) ",
                        flat)
    found["doubles"] = [*doubles.group(1).split(", "), doubles.group(2), doubles.group(3)] if doubles else []
    return found


@pytest.mark.parametrize("game", [Game.classic(), Game.family(4), Game.family(3)],
                         ids=lambda g: f"{g.ruleset}-{g.players}")
def test_every_example_the_help_gives_is_read(game: Game) -> None:
    names = NAMES[:game.players]
    text = app.help_text(game, names)
    examples = _help_examples(text)
    hand = parse_cards("9S QH TD 2C")
    for x in examples["card"]:
        read_card(x)
    for x in examples["rank alone"]:
        assert parse_play(x, hand, list(bits(hand))) in bits(hand), x
    for x in examples["pass"]:
        assert parse_play(x, hand, [PASS]) == PASS
    for x in examples["contract"]:
        parse_contract(x, game, list(range(len(game.contracts))))
    for x in examples["trump"]:
        parse_trump(x)
    for x in examples["start rank"]:
        parse_start_rank(x)
    for x in examples["doubles"]:
        parse_seats(x, names, 0b1110)
    assert all(examples[k] for k in ("card", "rank alone", "pass", "contract"))
    # Only what applies: family Barbu has no trumps, no starting rank and no doubles.
    classic_only = ("trump", "start rank", "doubles")
    assert all(bool(examples[k]) == game.is_classic for k in classic_only), examples
    assert ("Trumps" in text, "Starting rank" in text, "Doubles" in text) == (game.is_classic,) * 3


def test_help_is_the_help_of_the_game_played(tmp_path: Path) -> None:
    s, out = session(tmp_path, ScriptedStdin(["help"], EOFError()))
    s.play([])
    assert app.help_text(s.game, s.names) in out.getvalue()


def _leave_at(tmp_path: Path, lines: list[str], then: BaseException) -> tuple[str, State]:
    """Play ``lines`` from the start of seed 4, leave, and resume: what was said, what resumes."""
    s, out = session(tmp_path, ScriptedStdin(lines, then))
    s.play([])
    state, _ = app.resumed_game(str(tmp_path / "r.json"))
    return out.getvalue(), state


@pytest.mark.parametrize("then", [EOFError(), app.QuitGame()], ids=["end of input", "quit"])
def test_what_leaving_says_of_the_hand_in_progress_is_what_resuming_does(
        tmp_path: Path, then: BaseException) -> None:
    # Before the play: the deal is not saved, and comes again the same.
    said, resumed = _leave_at(tmp_path, [], then)
    first_deal = session(tmp_path, io.StringIO())[0].state
    first_deal.deal_random()
    assert resumed.phase == Phase.DEAL and resumed.hand_no == 0
    resumed.deal_random()
    assert resumed.hands == first_deal.hands
    assert "--resume deals it again with the same cards" in said and "carries it on" not in said
    # In the play: the hand is saved as far as it went, and goes on from there.
    said, resumed = _leave_at(tmp_path, ["no-tricks", "none"], then)
    assert resumed.phase == Phase.PLAY and resumed.hand_no == 0
    assert "--resume carries it on from there" in said and "deals it again" not in said


@pytest.mark.parametrize("width", [50, 58, 62])
def test_the_layout_keeps_its_rows_whole_in_a_narrow_terminal(width: int) -> None:
    state = reussite_opened_by_the_nine_of_hearts()
    out = io.StringIO()
    console = Console(file=out, width=width, color_system=None, force_terminal=False)
    console.print(render.status(state.observe(1), NAMES[:3], width))
    lines = out.getvalue().splitlines()
    assert all(len(line) <= width for line in lines)
    inside = [line.strip("│ ").split() for line in lines if line.startswith("│")]
    ranks = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
    assert ranks in inside  # the rank heading on one row of the box
    rows = {row[0]: row[1:] for row in inside if row and row[0] in "♠♥♦♣" and len(row) > 1}
    assert rows["♠"] == [*["·"] * 7, "9", *["·"] * 5]  # set aside (listed above the layout)
    assert rows["♥"] == [*["·"] * 7, "9", *["·"] * 5]
    assert "Set aside, face up: 9♠" in out.getvalue()


def test_a_bot_s_illegal_move_is_said_of_it_with_names(tmp_path: Path) -> None:
    class Doubler:
        """Doubles you, whom it may not double: you have doubled it already."""

        def act(self, obs: object) -> int:
            return DOUBLE + 0b0001

    state = State(Game.classic(), seed=11, first_declarer=2)
    state.deal_random()
    state.apply(state.game.parse_action("no-tricks"))
    state.apply(state.game.parse_action("double none"))  # Dan
    state.apply(state.game.parse_action("double 1"))  # you double Ben
    s, out = session(tmp_path, ScriptedStdin([], EOFError()), state=state)
    s.bots[1] = Doubler()  # type: ignore[assignment]
    s.play([])
    text = " ".join(out.getvalue().split())
    assert ("the computer player Ben tried an illegal move: it may not double Zoé, who has "
            "already doubled them") in text
    assert "seat 0" not in text


def you_must_pass_in_dominoes() -> State:
    """Ben declares Dominoes; every seat plays its highest legal card until you hold none that fits."""
    state = State(Game.classic(), seed=3, first_declarer=1)
    state.deal_random()
    state.apply(state.game.parse_action("dominoes"))
    while not (state.phase == Phase.PLAY and state.current == 0 and state.legal_actions() == [PASS]):
        legal = state.legal_actions()
        state.apply(legal[-1] if state.phase == Phase.PLAY else legal[0])
    return state


def your_passes(state: State) -> int:
    return sum(1 for s, a in zip(state.actors, state.actions, strict=True) if s == 0 and a == PASS)


def test_a_forced_pass_is_played_for_you_and_said(tmp_path: Path) -> None:
    state = you_must_pass_in_dominoes()
    mine = your_passes(state)
    s, out = session(tmp_path, ScriptedStdin([], EOFError()), state=state, stop_at=1)
    s.play([])
    text = out.getvalue()
    # No question is asked for it (the browser does the same): the pass is made, and a line says so.
    assert "No card of yours fits: you pass." in text
    assert "You cannot place a card" not in text
    assert your_passes(state) > mine
