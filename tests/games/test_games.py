"""The games layer: one record per game, the only place a game is named, and the import direction."""

from __future__ import annotations

import ast
import pathlib
import subprocess
import sys

import numpy as np
import pytest

from vint_env import games
from vint_env.rules.solo_whist_calls import PASS as SOLO_PASS
from vint_env.rules.solo_whist_calls import SOLO, trump_action
from vint_env.rules.vint import PASS, bid_action

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_registry_names_each_game_once_and_finds_it_by_either_name():
    assert games.names() == ("vint", "whist", "solo_whist", "vint2p")
    assert games.env_names() == ("vint_v0", "whist_v0", "solo_whist_v0", "vint2p_v0")
    for g in games.all_games():
        assert games.get(g.name) is g and games.get(g.env_name) is g and games.get(g) is g
    with pytest.raises(ValueError, match=r"unknown game 'bridge'; known games: vint, whist, solo_whist, vint2p"):
        games.get("bridge")
    with pytest.raises(ValueError, match="unknown game"):
        games.get(None)


@pytest.mark.parametrize("name", ["vint", "whist", "solo_whist", "vint2p"])
def test_record_agrees_with_its_env(name):
    g = games.get(name)
    raw = g.raw_env()
    assert raw.metadata["name"] == g.env_name
    assert raw.action_space("player_0").n == g.num_actions
    assert raw.observation_space("player_0")["observation"].shape == (g.layout.size,)
    assert raw.state_space.shape == (g.state_layout.size,)
    assert raw.reward_scale == g.reward_scale
    raw.reset(seed=1)
    st = raw.state()
    parts = g.state_layout.decode(st)
    assert parts["hands"].sum() == 52 and parts["to_move"].sum() == 1
    assert np.array_equal(parts["seat0_view"], raw.observe("player_0")["observation"])
    # action text and parsing are inverses over every action
    for a in range(g.num_actions):
        assert g.parse_action(g.action_text(a)) == a
    assert g.action_name(g.num_actions) == "out of range"
    assert type(g.rule_agent()).__name__.lower().startswith(name.replace("_", ""))


def test_calls_parse_by_name_in_every_game():
    assert games.get("vint").parse_action("pass") == PASS
    assert games.get("vint").parse_action("3nt") == bid_action(3, 4)
    solo = games.get("solo_whist")
    assert solo.parse_action("pass") == SOLO_PASS and solo.parse_action("Solo") == SOLO
    assert solo.parse_action("trump h") == trump_action(3)
    with pytest.raises(ValueError):
        games.get("whist").parse_action("pass")


def test_engine_games_come_from_the_records():
    assert games.engine_games() == ("vint", "whist", "solo_whist", "vint2p")
    assert games.get("whist").engine_class().__name__ == "WhistEngine"
    assert games.get("solo_whist").engine_class().__name__ == "SoloWhistEngine"
    assert games.get("vint2p").engine_class().__name__ == "Vint2pEngine"
    codes = [games.get(g).engine_code for g in games.engine_games()]
    assert sorted(codes) == list(range(len(codes)))          # one kernel number per game


def _run(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout


def test_importing_the_batched_engine_or_games_does_not_load_pettingzoo():
    out = _run("import sys, vint_env.vector, vint_env.games, vint_env.agents; "
               "print(sorted(m for m in sys.modules if m.split('.')[0] == 'pettingzoo' "
               "or m.startswith('vint_env.envs')))")
    assert out.strip() == "[]"


def test_the_public_imports_work():
    out = _run("from vint_env import vint_v0, whist_v0, solo_whist_v0\n"
               "from vint_env.games.vint import VINT_LAYOUT, encode_observation\n"
               "from vint_env.games.whist import WHIST_LAYOUT\n"
               "from vint_env.games.solo_whist import SOLO_WHIST_LAYOUT\n"
               "from vint_env.games.layout import Layout\n"
               "e = vint_v0.env(); e.reset(seed=0); print(VINT_LAYOUT.size, e.state().shape[0])")
    assert out.split() == ["1102", "1314"]


# Which layers may import which (docs/architecture.md): a layer imports only from the layers listed.
LOWER = {
    "cards": set(),
    "rules": {"cards"},
    "games": {"cards", "rules"},
    "envs": {"cards", "rules", "games"},
    "agents": {"cards", "rules", "games"},
    "vector": {"cards", "rules", "games"},
    "play": {"cards", "rules", "games", "envs", "agents", "evaluation"},
    "serve": {"cards", "rules", "games", "envs", "agents", "evaluation", "play"},
}


def _imported_layers(path: pathlib.Path) -> set[str]:
    tree = ast.parse(path.read_text())
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level == 2 and node.module:           # from ..layer import x
                out.add(node.module.split(".")[0])
            elif node.level == 2:                         # from .. import layer
                out.update(a.name for a in node.names)
            elif node.level == 0 and node.module and node.module.startswith("vint_env."):
                out.add(node.module.split(".")[1])
            elif node.level == 0 and node.module == "vint_env":
                out.update(a.name for a in node.names)
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("vint_env."):
                    out.add(a.name.split(".")[1])
    return out


@pytest.mark.parametrize("layer", sorted(LOWER))
def test_layers_import_only_downwards(layer):
    bad = {}
    layers = {"cards", "rules", "games", "envs", "agents", "vector", "evaluation", "wrappers", "play", "serve"}
    for path in sorted((ROOT / "vint_env" / layer).rglob("*.py")):
        wrong = (_imported_layers(path) & layers) - LOWER[layer] - {layer}
        if wrong:
            bad[str(path.relative_to(ROOT))] = sorted(wrong)
    assert not bad, f"{layer} imports layers above or beside it: {bad}"


def test_vector_imports_no_pettingzoo_module():
    for path in (ROOT / "vint_env" / "vector").rglob("*.py"):
        assert "pettingzoo" not in path.read_text(), path


def test_one_no_trump_marker():
    from vint_env import cards
    from vint_env.agents.rule import hand_eval
    from vint_env.rules import tricks, vint, vint_scoring
    from vint_env.vector import tables
    assert cards.NO_TRUMP == tricks.NO_TRUMP == vint_scoring.NT == hand_eval.NT == tables.NT == 4
    assert vint.Contract(3, cards.NO_TRUMP).trump == cards.NO_TRUMP
    for g in games.all_games():           # the observation's trump column of no-trump is the marker itself
        assert g.layout.blocks["trump"].shape == (cards.NO_TRUMP + 1,)


@pytest.mark.parametrize("name", ["vint", "whist", "solo_whist"])
def test_every_game_gives_one_deal_result_type(name):
    g = games.get(name)
    env = g.raw_env(reward_scale=g.points_scale)
    rng = np.random.default_rng(5)
    for seed in range(3):
        env.reset(seed=seed)
        with pytest.raises(ValueError, match="not over"):
            g.deal_result(env.deal)
        total = np.zeros(4)
        while env.current_seat >= 0:
            legal = env.legal_actions()
            env.step(int(legal[rng.integers(len(legal))]))
            total += [env.rewards[a] for a in games.AGENTS]
        result = g.deal_result(env.deal)
        assert isinstance(result, games.DealOutcome) and sum(result.points) == 0
        assert np.allclose(np.array(result.points) * g.points_scale, total)     # what the env paid out
        assert result.details["dealer"] == env.deal.dealer
        if g.partnership:
            assert set(result.breakdown) == {"NS", "EW"}
            assert result.points[0] == result.breakdown["NS"]["total"] - result.breakdown["EW"]["total"]


def test_agent_kinds_come_from_the_records():
    """The dd and pimc specs build what the game's record names, and refuse a game whose record names none."""
    from vint_env.agents import load_agent
    for game in games.all_games():
        if game.dd_agent is None:
            with pytest.raises(ValueError, match=f"does not play {game.name!r}.*it plays"):
                load_agent("dd", game=game.name)
        else:
            agent = load_agent("dd", game=game.env_name)
            assert agent.name == "dd" and agent.needs_env
        if game.pimc_agent is None:
            with pytest.raises(ValueError, match=f"PIMC agent does not play {game.name!r}"):
                load_agent("pimc", game=game.name)
        else:
            assert load_agent("pimc:samples=2", game=game.name, seed=1).name == "pimc"
    assert {g.name for g in games.all_games() if g.dd_agent} >= {"vint", "whist", "vint2p"}
    assert {g.name for g in games.all_games() if g.pimc_agent} >= {"vint", "whist"}


@pytest.mark.parametrize("option, bad", [("passout", "playy"), ("honours", "nett"), ("game_race", "first!"),
                                         ("game_bonus", 500)])
def test_every_vint_layer_refuses_a_bad_variant_with_one_message(option, bad):
    """Rules, both envs and the batched engine check Vint's variants in one function: the same message."""
    from vint_env import vint2p_v0, vint_v0
    from vint_env.rules.vint import VARIANTS, VintRubber
    from vint_env.vector import VintEngine
    message = f"{option} must be one of {VARIANTS[option]}, got {bad!r}"
    makers = [lambda: vint_v0.raw_env(**{option: bad}), lambda: vint2p_v0.raw_env(**{option: bad}),
              lambda: VintRubber(**{option: bad})]
    if option != "game_bonus":
        makers.append(lambda: VintEngine(**{option: bad}))
    for make in makers:
        with pytest.raises(ValueError) as info:
            make()
        assert str(info.value) == message
