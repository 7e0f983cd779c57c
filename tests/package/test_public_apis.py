"""Only public APIs of PettingZoo, and one shim for endplay's DDS binding tested against the installed endplay."""

import ast
import pathlib

import pytest
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from card_game_checks import ONE_SUIT_EACH
from vint_env import games
from vint_env.envs.order_enforcing import OrderEnforcingEnv

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _private_uses(path: pathlib.Path, package: str) -> list[str]:
    """Private names of ``package`` the file imports or reads (``endplay._dds``, ``env._has_reset`` ...)."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(package):
            out += [f"{node.module}.{a.name}" for a in node.names if a.name.startswith("_")]
            out += [node.module] if any(p.startswith("_") for p in node.module.split(".")) else []
        elif isinstance(node, ast.Import):
            out += [a.name for a in node.names if a.name.startswith(package)
                    and any(p.startswith("_") for p in a.name.split("."))]
    return out


def test_the_package_imports_no_private_module_of_pettingzoo_or_endplay_but_the_shim():
    found = {}
    for path in (ROOT / "vint_env").rglob("*.py"):
        uses = _private_uses(path, "pettingzoo") + _private_uses(path, "endplay")
        if uses and path.name != "dds_shim.py":
            found[path.relative_to(ROOT).as_posix()] = uses
    assert not found, found
    source = (ROOT / "vint_env" / "envs" / "order_enforcing.py").read_text()
    assert "_has_reset" not in source and "_has_updated" not in source
    assert "wrappers.order_enforcing" not in source


@pytest.mark.parametrize("game", games.all_games(), ids=lambda g: g.name)
def test_the_order_enforcing_env_keeps_pettingzoos_order_rules(game):
    env = game.env()
    wrapper = env
    while not isinstance(wrapper, OrderEnforcingEnv):
        wrapper = wrapper.env
    assert isinstance(wrapper, OrderEnforcingWrapper)
    with pytest.raises(AttributeError, match="agent_selection cannot be accessed before reset"):
        env.agent_selection
    with pytest.raises(AttributeError, match="cannot be accessed before reset"):
        env.last()
    env.reset(seed=0)
    steps = 0
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(obs["action_mask"].nonzero()[0][0]))
        steps += 1
    assert steps >= 2 and not env.agents        # the episode ran to its end
    env.reset(seed=0)
    iterator = iter(env.agent_iter())
    next(iterator)
    with pytest.raises(AssertionError, match="need to call step"):
        next(iterator)                         # no step between two agents


pytest.importorskip("endplay")
from vint_env.agents.search import dds_shim  # noqa: E402


def test_the_installed_endplay_has_every_name_the_batch_solver_uses():
    binding = dds_shim.load_binding()
    for name in dds_shim.NEEDED:
        assert hasattr(binding, name), name
    assert binding.MAXNOOFBOARDS >= 1


@pytest.mark.parametrize("version", ["0.4.9", "0.6.0", "1.0"])
def test_an_untested_endplay_is_refused_naming_the_version_needed(version):
    with pytest.raises(ImportError, match=rf"needs endplay>=0\.5\.12,<0\.6 .*found endplay {version}"):
        dds_shim.load_binding(version)


def test_a_solve_through_the_binding_is_right():
    from vint_env.agents.search.dds_batch import solve_one
    from vint_env.cards import parse_pbn
    hands = parse_pbn(ONE_SUIT_EACH)
    tricks = solve_one(hands, 4, 0, [])      # no trump, North leads: every spade wins
    assert set(tricks.values()) == {13}
