"""The game travels as its record: a name is resolved (``games.get``) once where it enters, and every
function it is handed on to gets the record.  Counted by wrapping ``vint_env.games.get``."""

from __future__ import annotations

import pytest

from vint_env import games


@pytest.fixture
def by_name(monkeypatch):
    """The names (not records) ``games.get`` is asked to resolve while the test runs."""
    real, names = games.get, []

    def counting(game):
        if not isinstance(game, games.Game):
            names.append(game)
        return real(game)

    monkeypatch.setattr(games, "get", counting)
    return names


@pytest.mark.parametrize("spec", ["random", "rule", "human", "dd"])
@pytest.mark.parametrize("name", ["whist", "whist_v0"])
def test_loading_an_agent_resolves_its_game_once(by_name, spec, name):
    from vint_env.agents.registry import load_agent
    load_agent(spec, game=name)
    assert by_name == [name]


def test_loading_the_shipped_baseline_resolves_its_game_once(by_name):
    pytest.importorskip("torch")
    from vint_env.agents.registry import load_agent
    agent = load_agent("baseline", game="whist")     # the registry, the baseline's checks, the checkpoint, the net
    assert agent.name == "baseline" and by_name == ["whist"]


def test_an_agent_given_the_record_resolves_nothing(by_name):
    from vint_env.agents.registry import load_agent
    load_agent("rule", game=games.get("vint2p"))
    assert by_name == ["vint2p"]                     # the test's own call only


def test_a_match_resolves_its_game_where_it_starts_and_where_its_tables_are_built(by_name):
    from vint_env.evaluation import generate_boards, run_match
    result = run_match("vint", "rule", "random", generate_boards(2, seed=4), seed=4, analysis=False)
    assert result.game == "vint"
    assert by_name == ["vint", "vint"]               # run_match, and the table (a worker gets the name)


def test_vint_play_resolves_the_game_once(by_name):
    from vint_env.play.cli import build_parser, make_session
    args = build_parser().parse_args(["--game", "solo_whist", "--seed", "3", "--opponents", "random"])
    by_name.clear()                                  # argparse's check of the name
    session = make_session(args, input_fn=lambda prompt: "quit", print_fn=lambda *a, **k: None)
    assert session.game == "solo_whist" and by_name == ["solo_whist"]
