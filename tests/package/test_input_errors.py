"""Issue 23 items 10, 11, 18 and 19 (the parts not about env options): clear, named errors for bad input."""

from __future__ import annotations

import numpy as np
import pytest

from card_game_checks import LOWEST_EAST as DEAL
from vint_env import solo_whist_v0, vint2p_v0, vint_v0, whist_v0
from vint_env.cards import DeckError
from vint_env.envs.base import UnknownAgentError
from vint_env.evaluation.cli import main as eval_main
from vint_env.evaluation.deals import generate_boards, load_boards, parse_boards
from vint_env.evaluation.match import run_match
from vint_env.rules import MalformedActionError
from vint_env.seeds import SeedError
from vint_env.vector import VintEngine, WhistEngine

ENVS = [vint_v0, whist_v0, solo_whist_v0, vint2p_v0]


def board(**tags):
    tags = {"Board": "1", "Dealer": "N", "Deal": DEAL, **tags}
    return "\n".join(f'[{k} "{v}"]' for k, v in tags.items() if v is not None) + "\n"


# ---------------------------------------------------------------- 10: deal files name the file and line

@pytest.mark.parametrize("text, message", [
    ("% a comment\n" + board(Deal=DEAL.replace("987.KQ", "987.KQ2").replace(" 432.5432", " 432.543")),
     r"boards\.pbn:4: \[Deal"),                                     # the deal is on line 4
    (board(Deal=DEAL.replace("987.KQ", "987.KQ5")), r"boards\.pbn:3: .*"),          # a card dealt twice
    (board(Deal=DEAL.replace("987.KQ.", "987.K.")), r"boards\.pbn:3: .*"),          # a short hand
    (board(Board="abc"), r"boards\.pbn:1: Board must be a board number"),
    (board(Board="-7"), r"boards\.pbn:1: Board must be a board number"),
    (board(Board="\u0663"), r"boards\.pbn:1: Board must be a board number"),         # Arabic-Indic three
    (board(Board="0"), r"boards\.pbn:1: Board must be a board number"),
    (board(TurnedCard="X9"), r"boards\.pbn:4: TurnedCard 'X9' is not a card"),
    (board(TurnedCard="SA"), r"boards\.pbn:4: turned card SA is not in the dealer's hand"),
    (board(Dealer="Q"), r"boards\.pbn:2: Dealer must be N, E, S or W"),
])
def test_deal_file_errors_name_the_file_and_line(tmp_path, text, message):
    path = tmp_path / "boards.pbn"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DeckError, match=message):
        load_boards(path)


def test_utf16_and_binary_deal_files_name_the_file(tmp_path, capsys):
    utf16 = tmp_path / "u16.pbn"
    utf16.write_text(board(), encoding="utf-16")
    with pytest.raises(DeckError, match=r"u16\.pbn is not PBN text .*UTF-16"):
        load_boards(utf16)
    latin = tmp_path / "latin.pbn"
    latin.write_bytes(b'[Board "1"]\n[Dealer "\xe9"]\n')
    with pytest.raises(DeckError, match=r"latin\.pbn:2: deal file is not UTF-8 text"):
        load_boards(latin)
    assert eval_main(["match", "--a", "rule", "--b", "random", "--deals", str(utf16), "--workers", "1"]) == 2
    assert "u16.pbn" in capsys.readouterr().err


def test_the_ascii_board_numbers_still_parse():
    assert [b.number for b in parse_boards(board(Board="12"))] == [12]


# ---------------------------------------------------------------- 11: seeds

@pytest.mark.parametrize("seed", [-1, "abc", True, 1.5, np.bool_(True), [1, 2]], ids=repr)
@pytest.mark.parametrize("module", ENVS, ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_bad_seeds_name_seed_and_change_nothing(module, seed):
    env = module.env()
    env.reset(seed=3)
    before = (env.agent_selection, env.observe(env.agent_selection)["observation"].copy())
    with pytest.raises(SeedError, match=r"^seed must be a non-negative integer"):
        env.reset(seed=seed)
    assert env.agent_selection == before[0]
    np.testing.assert_array_equal(env.observe(env.agent_selection)["observation"], before[1])


def test_numpy_integer_seeds_are_seeds():
    env = vint_v0.env()
    env.reset(seed=np.int64(5))
    a = env.observe(env.agent_selection)["observation"].copy()
    env.reset(seed=5)
    np.testing.assert_array_equal(env.observe(env.agent_selection)["observation"], a)


@pytest.mark.parametrize("seed", [-1, "abc", True, np.array([1, -2]), np.array([True, False])], ids=repr)
def test_engine_and_harness_seeds(seed):
    with pytest.raises(SeedError, match="seed must be a non-negative integer"):
        VintEngine().init(seed=seed, batch_size=2)
    if np.ndim(seed) == 0:
        with pytest.raises(SeedError, match="seed must be"):
            generate_boards(2, seed=seed)
        with pytest.raises(SeedError, match="seed must be"):
            run_match("vint", "random", "random", generate_boards(1), seed=seed)


def test_vint_eval_negative_seed_is_a_one_line_error(capsys):
    assert eval_main(["deals", "--boards", "2", "--seed", "-1", "--out", "/tmp/never_written.pbn"]) == 2
    assert "seed must be a non-negative integer" in capsys.readouterr().err


# ---------------------------------------------------------------- 18: deals= is a list of deals

@pytest.mark.parametrize("deals, message", [
    (DEAL, "got a single PBN string"),
    (5, "must be a list of deals"),
    ({"a": 1}, "must be a list of deals"),
])
@pytest.mark.parametrize("engine", [VintEngine, WhistEngine])
def test_engine_deals_must_be_one_deal_per_game(engine, deals, message):
    with pytest.raises(DeckError, match=message):
        engine().init(seed=0, deals=deals)
    state = engine().init(seed=0, batch_size=1)
    with pytest.raises(DeckError, match=message):
        engine().reset(state, deals=deals, dealers=0)
    assert len(engine().init(seed=0, deals=[DEAL], dealers=[0]).key) == 1


# ---------------------------------------------------------------- 19: observe, uint64 actions

@pytest.mark.parametrize("module", ENVS, ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_observing_an_agent_the_env_lacks_names_it(module):
    env = module.env()
    env.reset(seed=0)
    for bad in ("player_9", 0, None):
        with pytest.raises(UnknownAgentError, match=r"no agent .*; its agents are player_0"):
            env.observe(bad)
    with pytest.raises(KeyError):                      # still a KeyError for code that caught one
        env.observe("player_9")


def test_a_uint64_action_is_reported_as_itself():
    engine = VintEngine()
    state = engine.init(seed=0, batch_size=1)
    with pytest.raises(MalformedActionError, match=r"game 0: 9223372036854775808\b"):
        engine.step(state, np.array([2**63], dtype=np.uint64))
    env = vint_v0.env()
    env.reset(seed=0)
    with pytest.raises(MalformedActionError, match=r"9223372036854775808 is out of range"):
        env.step(np.uint64(2**63))
