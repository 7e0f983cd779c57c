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
