"""The deal-outcome type of every game (``vint_env.games.outcome``): a hand-made deal played through the
rules, its outcome worked out by hand, and what the harness, the replays and the reports read from it.

The deal: every seat holds one whole suit (North the spades, East the hearts, South the diamonds,
West the clubs), so whoever holds the trumps ruffs every lead and takes all thirteen tricks.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess

import numpy as np
import pytest

from vint_env import games
from vint_env.cards import parse_card, parse_pbn
from vint_env.games.outcome import DealOutcome
from vint_env.rules.vint import Contract

from card_game_checks import ONE_SUIT_EACH as ONE_SUIT_EACH_PBN   # N spades, E hearts, S diamonds, W clubs

ONE_SUIT_EACH = parse_pbn(ONE_SUIT_EACH_PBN)


def play_out(game, deal, calls: dict[int, str]):
    """Play ``deal`` to its end: seat s makes call ``calls[s]`` when it may (else passes), and every
    card played is the lowest legal one."""
    record = games.get(game)
    while not deal.is_over:
        legal = list(deal.legal_actions())
        texts = {record.action_text(a): a for a in legal}
        want = calls.get(deal.current_player)
        if want in texts:
            deal.apply(texts[want])
        elif "pass" in texts:
            deal.apply(texts["pass"])
        else:
            deal.apply(min(legal))
    return record.deal_result(deal)


def test_vint_seven_spades_by_north_takes_every_trick():
    record = games.get("vint")
    outcome = play_out("vint", record.new_deal(ONE_SUIT_EACH, dealer=0), {0: "7S"})
    assert type(outcome).__name__ == "VintOutcome" and isinstance(outcome, DealOutcome)
    assert outcome.contract == Contract(7, 0) and outcome.contract_name == "7S"
    assert (outcome.declarer, outcome.side_tricks, outcome.made, outcome.passed_out) == (0, (13, 0), True, False)
    # partners alike, zero-sum, and the points are the sides' totals apart
    diff = outcome.breakdown["NS"]["total"] - outcome.breakdown["EW"]["total"]
    assert outcome.points == (diff, -diff, diff, -diff) and diff > 0
    assert outcome.details == {"dealer": 0, "passed_out": False, "contract": "7S", "level": 7, "strain": 0,
                               "declarer": 0, "side_tricks": [13, 0]}


def test_whist_spades_trumps_north_south_take_all_and_score_by_hand():
    record = games.get("whist")
    outcome = play_out("whist", record.new_deal(ONE_SUIT_EACH, 0, parse_card("SA")), {})
    assert type(outcome).__name__ == "WhistOutcome"
    assert (outcome.trump, outcome.tricks_won, outcome.contract_name, outcome.declarer, outcome.made) == \
        (0, (13, 0, 0, 0), None, None, None)
    # N/S: 7 tricks over six at 2 = 14, the grand slam 20, four honours (N holds A K Q J of trumps) 4,
    # coronets: N's thirteen trumps 120, S's thirteen diamonds 60 -> 218.  E/W: two plain thirteen-card
    # runs, 60 each -> 120.  N/S's points: 218 - 120 = 98.
    assert outcome.breakdown["NS"]["total"] == 218 and outcome.breakdown["EW"]["total"] == 120
    assert outcome.points == (98, -98, 98, -98)
    assert outcome.details == {"dealer": 0, "tricks_won": [13, 0, 0, 0], "trump": 0}


def test_solo_whist_a_solo_with_every_trump_collects_twelve_from_each():
    record = games.get("solo_whist")
    outcome = play_out("solo_whist", record.new_deal(ONE_SUIT_EACH, 0, parse_card("SA")), {0: "solo"})
    assert type(outcome).__name__ == "SoloWhistOutcome"
    assert (outcome.contract_name, outcome.declarer, outcome.declaring, outcome.made, outcome.thrown_in) == \
        ("solo", 0, (0,), True, False)
    assert outcome.tricks_won == (13, 0, 0, 0)
    # a solo: stake 4 quarter points and 1 a trick over five: 4 + 8 = 12 from each of the three others
    assert outcome.points == (36, -12, -12, -12)
    assert outcome.breakdown == {"seat0": 36, "seat1": -12, "seat2": -12, "seat3": -12}
    assert outcome.details == {"dealer": 0, "thrown_in": False, "contract": "solo", "declaring": [0],
                               "declarer": 0, "made": True, "tricks_won": [13, 0, 0, 0]}


def test_solo_whist_all_passing_throws_the_deal_in():
    record = games.get("solo_whist")
    outcome = play_out("solo_whist", record.new_deal(ONE_SUIT_EACH, 2, parse_card("DA")), {})
    assert (outcome.thrown_in, outcome.contract_name, outcome.declarer, outcome.made) == (True, None, None, None)
    assert outcome.points == (0, 0, 0, 0)
    assert outcome.details == {"dealer": 2, "thrown_in": True}


def test_vint2p_both_players_passing_is_passed_out_for_nothing():
    record = games.get("vint2p")
    outcome = play_out("vint2p", record.new_deal(ONE_SUIT_EACH, way=4, dealer=1), {})
    assert type(outcome).__name__ == "Vint2pOutcome"
    assert (outcome.passed_out, outcome.contract, outcome.declarer, outcome.made, outcome.player_tricks) == \
        (True, None, None, None, None)
    assert outcome.points == (0, 0) and set(outcome.breakdown) == {"player_0", "player_1"}
    assert outcome.details == {"way": 4, "dealer": 1, "passed_out": True}


def test_a_deal_being_played_has_an_outcome_without_points():
    record = games.get("vint")
    deal = record.new_deal(ONE_SUIT_EACH, dealer=0)
    outcome = record.deal_outcome(deal)
    assert not outcome.finished and outcome.points is None and outcome.breakdown == {}
    with pytest.raises(ValueError, match="not over"):
        record.deal_result(deal)


@pytest.mark.parametrize("game", games.all_games(), ids=lambda g: g.name)
def test_every_game_reads_its_outcome_back_from_the_results_files_details(game):
    env, rng = game.raw_env(), np.random.default_rng(0)
    for seed in range(6):
        env.reset(seed=seed)
        while not env.deal.is_over:
            mask = env.observe(env.agent_selection)["action_mask"]
            env.step(int(rng.choice(mask.nonzero()[0])))
        outcome = game.deal_result(env.deal)
        back = game.outcome.from_details(outcome.details)
        assert back.details == outcome.details
        assert (back.contract_name, back.declarer, back.made) == (outcome.contract_name, outcome.declarer,
                                                                  outcome.made)


def test_the_harness_tables_and_replays_carry_the_outcome():
    from vint_env.evaluation import generate_boards, run_match
    from vint_env.evaluation.report import summarize
    result = run_match("solo_whist", "rule", "random", generate_boards(3, seed=5), seed=5, analysis=False)
    for board in result.boards:
        for table in board.tables:
            assert isinstance(table.outcome, games.get("solo_whist").outcome)
            assert table.details == table.outcome.details          # what the results file writes
            assert table.replay[-1].outcome == table.outcome       # the replay's record of the same deal
    # the contract sections count the outcomes' contracts: every table declared or thrown in
    sc = summarize(result)["solo_contracts"]
    declared = sum(v[0] for team in ("A", "B") for v in sc[team].values())
    assert declared + sc["thrown_in"] == 3 * 4


CHROMIUM = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)), None)


@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed (Debian: apt-get install -y "
                    "chromium); the viewer's boards table is not checked")
@pytest.mark.parametrize("game", ["vint", "whist", "solo_whist", "vint2p"])
def test_the_viewers_boards_table_shows_each_tables_outcome(game, tmp_path):
    from vint_env.evaluation.cli import main as cli_main
    page = tmp_path / "m.html"
    assert cli_main(["match", "--game", game, "--a", "rule", "--b", "random", "--boards", "3", "--seed", "2",
                     "--workers", "1", "--no-progress", "--no-dd", "--out", str(tmp_path / "m.json"),
                     "--html", str(page)]) == 0
    saved = json.loads((tmp_path / "m.json").read_text())
    out = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", page.as_uri()],
                         capture_output=True, text=True, timeout=120)
    assert 'data-ready="1"' in out.stdout, out.stderr[-2000:]
    rows = {int(n): [html.unescape(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row)]
            for n, row in re.findall(r'<tr data-board="(\d+)"[^>]*>(.*?)</tr>', out.stdout, re.S)}
    names = ("player_0", "player_1") if game == "vint2p" else tuple("NESW")
    for board in saved["boards"]:
        cells = rows[board["board"]]
        for i, t in enumerate(board["tables"]):
            # the facts each game's results file holds, read as a person would
            if t.get("contract") is not None:
                text = f"{t['contract']} by {t['seats'][t['declarer']]} ({names[t['declarer']]})"
            else:
                text = ("passed out" if t.get("passed_out") else "thrown in" if t.get("thrown_in")
                        else f"trump {t['trump']}")
            tricks = t.get("side_tricks") or t.get("player_tricks") or t.get("tricks_won") or []
            assert cells[2 + 3 * i] == text, (board["board"], i)
            assert cells[3 + 3 * i] == "-".join(map(str, tricks)), (board["board"], i)
