"""Modules moved by the split of agents/ and training/ keep their old names for one release: importing an old
name warns and gives the module at the new name itself (one object, not a copy)."""

import importlib
import subprocess
import sys

import pytest


@pytest.mark.parametrize("old, new", [
    ("vint_env.agents.policy", "vint_env.agents.learned.policy"),
    ("vint_env.agents.vint_rule", "vint_env.agents.rule.vint"),
    ("vint_env.agents.pimc", "vint_env.agents.search.pimc"),
])
def test_old_agent_module_names_warn_and_are_the_new_modules(old, new):
    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=new.replace(".", r"\.")):
        moved = importlib.import_module(old)
    assert moved is importlib.import_module(new)


def test_a_name_that_never_existed_still_fails_to_import():
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("vint_env.agents.no_such_module")


def test_the_training_library_is_installed_under_the_package_name_and_the_scripts_run_from_the_clone():
    # A fresh interpreter: `training.ppo` (the old top-level name) resolves to the installed vint_env.training.ppo.
    code = ("import warnings; warnings.simplefilter('error');\n"
            "import vint_env.training.ppo as new\n"
            "try:\n    import training.ppo\nexcept DeprecationWarning as w:\n    print('warned', w)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "training.ppo is now vint_env.training.ppo" in out
    help_text = subprocess.run([sys.executable, "-m", "training.baseline", "--help"], capture_output=True,
                               text=True, check=True).stdout
    assert "--game" in help_text


@pytest.mark.parametrize("module, old, new", [
    ("vint_env.evaluation.replay", "DealRecord", "vint_env.evaluation.replay.DealReplay"),
    ("vint_env.evaluation.match", "AGENT_NAMES", "vint_env.games.AGENTS"),
    ("vint_env.agents.rule.card_play", "ACE", "vint_env.cards.Rank.ACE"),
    ("vint_env.agents.rule.hand_eval", "TEN", "vint_env.cards.Rank.TEN"),
    ("vint_env.envs.partnership", "EPISODES", "vint_env.games.vint.EPISODES"),
    ("vint_env.agents.search.pimc", "vint_position", "vint_env.agents.search.pimc_games.vint_position"),
    ("vint_env.agents.search.pimc", "sampled_dd_call", "vint_env.agents.search.pimc_games.sampled_dd_call"),
])
def test_renamed_public_names_warn_and_are_the_new_objects(module, old, new):
    """Names that moved in the redesign of issue 22 keep their old homes for one release."""
    import functools
    owner = importlib.import_module(module)
    with pytest.warns(DeprecationWarning, match=new.replace(".", r"\.")):
        moved = getattr(owner, old)
    parts = new.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            target = functools.reduce(getattr, parts[cut:], importlib.import_module(".".join(parts[:cut])))
            break
        except ModuleNotFoundError:
            continue
    assert moved is target


def test_old_tables_keyed_by_game_name_still_read_from_the_records():
    from vint_env.agents.search import pimc
    with pytest.warns(DeprecationWarning):
        assert set(pimc.POSITION_OF) == {"vint", "whist"}
