"""`vint-play`: a person plays whole deals and rubbers against bots, typing calls and cards by name.

In-process with a scripted person (every game), and the real command in a pseudo-terminal
(pexpect): a whole deal, quit, end of input and Ctrl-C."""

import itertools
import re
import sys
from pathlib import Path

import pytest

from vint_env.cards import parse_pbn
from vint_env.evaluation.deals import generate_board
from vint_env.play.actions import action_codec, parse_typed
from vint_env.play.cli import build_parser, main, make_session
from vint_env.play.session import hand_text

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("game, typed, text", [
    ("vint", "1nt", "1NT"), ("vint", "1N", "1NT"), ("vint", "PASS", "pass"), ("vint", "p", "pass"),
    ("vint", "sa", "SA"), ("vint", "h10", "H10"), ("vint", "hT", "H10"), ("vint", "7s", "7S"),
    ("whist", "c2", "C2"), ("whist", "DT", "D10"),
    ("solo_whist", "misere", "misère"), ("solo_whist", "Solo", "solo"), ("solo_whist", "SA", "SA"),
    ("solo_whist", "trump d", "trump D"), ("solo_whist", "pass", "pass"),
])
def test_typed_calls_and_cards(game, typed, text):
    action_text, _ = action_codec(game)
    assert action_text(parse_typed(game, typed)) == text


@pytest.mark.parametrize("game, typed", [("vint", "8NT"), ("vint", "zz"), ("vint", "S1"), ("whist", "1NT"),
                                         ("solo_whist", "misery"), ("vint", "  ")])
def test_typed_nonsense_is_refused(game, typed):
    with pytest.raises(ValueError):
        parse_typed(game, typed)


class ScriptedPerson:
    """Answers each prompt: on its first turns a word that is not an action and an action that is
    not legal; then `hint`, and plays what the hint said (with --no-hint, the first legal action)."""

    def __init__(self, printed):
        self.printed = printed
        self.queue: list[str] = []
        self.turns = 0
        self.prompts: list[str] = []

    def _last(self, prefix: str) -> str:
        return next(x for x in reversed(self.printed) if x.startswith(prefix)).removeprefix(prefix)

    def _legal(self) -> str:
        """The last legal list, its wrapped lines joined."""
        start = max(i for i, x in enumerate(self.printed) if x.startswith("Your legal actions: "))
        lines = [self.printed[start].removeprefix("Your legal actions: ")]
        lines += [x.strip() for x in itertools.takewhile(lambda x: x.startswith("    "), self.printed[start + 1:])]
        return " ".join(lines)

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        if not self.queue:
            legal = self._legal()
            self.turns += 1
            illegal = "S2" if not re.search(r"\bS2\b", legal) else "H2"
            self.queue = (["zz", illegal] if self.turns <= 2 else []) + ["hint", "<hinted>"]
        answer = self.queue.pop(0)
        if answer == "<hinted>":
            hint = self._last("hint: ")
            answer = (hint.removeprefix("the rule bot would play ") if hint.startswith("the rule bot")
                      else self._legal().split(" ")[0])
            return answer.lower()
        return answer


def _session(argv):
    printed: list[str] = []

    def out(*parts, **_):
        printed.extend(" ".join(str(p) for p in parts).split("\n"))

    person = ScriptedPerson(printed)
    session = make_session(build_parser().parse_args(argv), input_fn=person, print_fn=out)
    return session, printed, person


@pytest.mark.parametrize("game", ["vint", "whist", "solo_whist"])
def test_a_whole_deal_ends_with_all_hands_contract_tricks_and_score(game):
    session, printed, person = _session(["--game", game, "--seed", "11", "--seat", "E"])
    assert session.run() == 0
    text = "\n".join(printed)
    assert person.turns >= 13                                   # every trick, besides any calls
    assert "not understood: 'zz'" in text and "is not legal now: " in text
    reasons = re.findall(r"is not legal now: (.*)$", text, re.M)
    assert reasons and all(r in ("S2 is not in your hand", "H2 is not in your hand", "it is not yet time to play cards: make a call")
                           or r.startswith("you must follow suit: ") for r in reasons), reasons
    assert "hint: the rule bot would play" in text
    board = generate_board(11, 1)
    hands = parse_pbn(board.deal)
    end = text[text.index("--- deal over"):]
    for seat, letter in enumerate("NESW"):                     # all four hands, as dealt
        assert re.search(rf"^  {letter} \(.*\) +{re.escape(hand_text(hands[seat]))}$", end, re.M)
    assert "tricks:" in end and "Points this deal:" in end
    if game == "vint":
        assert "contract:" in end or "passed out: yes" in end
        assert "score:" in end and "NS" in end and "EW" in end
    if game == "solo_whist":
        assert "payments (quarter points)" in end
    # the person's points are the env's
    mine = float(re.search(r"\(yours ([+-]?[\d.,]+)\)", end).group(1).replace(",", ""))
    assert mine == session.total


@pytest.mark.parametrize("way", [1, 2, 3, 4, 5])
def test_two_player_vint_a_whole_deal_in_every_way(way):
    """The person is a player, plays his dummy's cards too, and sees the deal's end in players' terms."""
    seed = {1: 21, 2: 22, 3: 23, 4: 24, 5: 24}[way]              # deals that are played, not passed out
    session, printed, person = _session(["--game", "vint2p", "--env-option", f"way={way}", "--player", "1",
                                         "--seed", str(seed)])
    assert session.run() == 0
    text = "\n".join(printed)
    assert session.raw.way == way and session.seating.human == 1 and set(session.seating.bots) == {0}
    assert f"Two-player Vint, way {way}" in text
    assert "hint: the rule bot would play" in text
    end = text[text.index("--- deal over"):]
    deal = session.raw.deal
    hands = parse_pbn(generate_board(seed, 1).deal)
    for seat, letter in enumerate("NESW"):                     # the four hands as dealt, with who held them
        held = deal.dealt[seat] & ~deal.widow                    # way 5: the widow's four cards lie apart
        assert re.search(rf"^  {letter} \(.*\) +{re.escape(hand_text(held))}$", end, re.M)
    assert deal.dealt == tuple(hands)
    if way == 5:
        assert re.search(rf"^  widow +{re.escape(hand_text(deal.widow))}$", end, re.M)
    assert "player_0" in end and "N/S" not in end and "E/W" not in end
    assert re.search(r"^  dealer: player_[01]$", end, re.M)
    mine = float(re.search(r"\(yours ([+-]?[\d.,]+)\)", end).group(1).replace(",", ""))
    assert mine == session.total == session.env.unwrapped.deal.scores[1].total - deal.scores[0].total
    assert deal.play is not None and person.turns >= 6 and "-- trick 13 won by" in text
    assert re.search(r"tricks: player_0 \d+, player_1 \d+$", text, re.M)
    if way in (1, 4, 5):
        assert "(you) for " in text and "your dummy> " in "".join(person.prompts)   # he played his dummy too


def test_two_player_vint_wants_a_player_not_a_seat(capsys):
    assert main(["--game", "vint2p", "--seat", "S"]) == 2
    assert "--player 0 or 1" in capsys.readouterr().err
    assert main(["--game", "vint", "--player", "1"]) == 2
    assert "not --player" in capsys.readouterr().err
    assert main(["--game", "vint2p", "--env-option", "way=9"]) == 2
    assert "way must be one of" in capsys.readouterr().err
    assert main(["--game", "vint2p", "--partner", "rule"]) == 2


def test_the_call_help_of_every_game():
    from vint_env import games
    from vint_env.play.session import help_text
    for game in games.all_games():
        assert game.calls_help and game.calls_help in help_text(game.name)
    assert "widow-hand" in help_text("vint2p") and "exchange" in help_text("vint2p")


def test_a_rubber_shows_the_score_sheet_after_every_deal():
    session, printed, _ = _session(["--game", "whist", "--episode", "rubber", "--seed", "2",
                                    "--opponents", "random", "--no-hint"])
    assert session.run() == 0
    text = "\n".join(printed)
    deals = text.count("--- deal over")
    assert deals >= 2 and text.count("Score sheet of the rubber") == deals
    assert "rubber over: won by" in text


def test_solo_whist_has_no_partner_option(capsys):
    assert main(["--game", "solo_whist", "--partner", "rule"]) == 2
    assert "no fixed partner" in capsys.readouterr().err
    assert main(["--game", "solo_whist", "--episode", "rubber"]) == 2
    assert main(["--opponents", "network:/nonexistent.pt"]) == 2


@pytest.mark.parametrize("argv, line", [
    (["--game", "vint", "--seed", "5"], "Dealer S (you)."),                       # the person deals
    (["--game", "vint", "--seed", "0"], "Dealer W (rule). You are S."),
    (["--game", "whist", "--seed", "2", "--seat", "E"], "Dealer E (you). Turned card: S8."),
    (["--game", "vint2p", "--seed", "0", "--player", "1"], "Dealer player_1 (you)."),
    (["--game", "vint2p", "--seed", "5", "--player", "1"], "Dealer player_0 (rule). You are player_1."),
])
def test_the_deal_is_announced_naming_the_person_once(argv, line):
    """Dealing, the person was "Dealer S (you). You are S (you).": the seat and "(you)" are said once."""
    printed: list[str] = []
    session = make_session(build_parser().parse_args(argv + ["--no-hint"]), input_fn=lambda prompt: "quit",
                           print_fn=lambda *parts, **_: printed.extend(" ".join(map(str, parts)).split("\n")))
    assert session.run() == 0
    [announced] = [x for x in printed if x.startswith("Dealer ")]
    assert announced == line


# ------------------------------------------------------------ the real command in a pseudo-terminal

pexpect = pytest.importorskip("pexpect")


def _spawn(*args):
    return pexpect.spawn(sys.executable, ["-m", "vint_env.play.cli", *args], cwd=str(ROOT), encoding="utf-8",
                         timeout=120, dimensions=(50, 160), env={"PYTHONUNBUFFERED": "1", "PATH": "/usr/bin:/bin"})


def test_terminal_whole_whist_deal_typed_by_name():
    child = _spawn("--game", "whist", "--seed", "4", "--opponents", "random")
    for _ in range(13):
        child.expect(r"Your legal actions: ([^\r\n]+)\r?\n")
        first = child.match.group(1).split()[0]
        child.expect_exact("S (you)> ")
        child.sendline(first.lower().replace("10", "t"))   # h10 typed as ht
    child.expect_exact("--- deal over")
    child.expect_exact("Points this deal:")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert "Traceback" not in child.before


@pytest.mark.signals
@pytest.mark.parametrize("how, said, status", [("quit", "Bye.", 0), ("eof", "Bye.", 0),
                                               ("ctrl-c", "interrupted", 130)])
def test_terminal_leaves_cleanly(how, said, status):
    child = _spawn("--game", "vint", "--seed", "1")
    child.expect_exact("S (you)> ")
    child.sendline("9NT")
    child.expect_exact("not understood")
    child.expect_exact("S (you)> ")
    if how == "quit":
        child.sendline("quit")
    elif how == "eof":
        child.sendeof()
    else:
        child.sendintr()
    child.expect_exact(said)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == status
    assert "Traceback" not in child.before


def test_terminal_whole_two_player_deal_with_the_dummy():
    """Way 4 at the terminal: the person answers for his own hand and, after the auction, his dummy."""
    child = _spawn("--game", "vint2p", "--env-option", "way=4", "--seed", "24", "--opponents", "random")
    prompts = set()
    while True:
        if child.expect([r"Your legal actions: ([^\r\n]+)\r?\n", r"--- deal over"]) == 1:
            break
        first = re.split(r",? ", child.match.group(1).strip())[0]
        child.expect(r"(player_0 \(you\)(?: for [NESW], your dummy)?)> ")
        prompts.add(child.match.group(1))
        child.sendline(first)
    child.expect_exact("Points this deal:")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0 and "Traceback" not in child.before
    assert "player_0 (you)" in prompts and any("your dummy" in p for p in prompts)
