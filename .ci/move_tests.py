#!/usr/bin/env python3
"""Move the test files of tests/ into folders by layer (tests/<layer>/test_*.py), with git mv.

    python .ci/move_tests.py            # move every test file still at tests/ top level, rewrite the paths
    python .ci/move_tests.py --check    # say where each would go, move nothing; exit 1 if one has no folder

Re-runnable: it moves only files still at the top of tests/, so after merging branches that added new
test files there, running it again files them too.  A file goes where FOLDER names it, else where the
first matching pattern of RULES sends it; a file neither knows is an error (add it to FOLDER).

What it rewrites, so that nothing points at the old places:
- in each moved file, the paths it builds from its own location (``Path(__file__).resolve().parents[1]``,
  ``.parent.parent``, ``.parent / "data"``): one folder deeper now;
- in every tracked text file of the repository, ``tests/test_x.py`` becomes ``tests/<layer>/test_x.py`` and the
  module name ``tests.test_x`` (an agent spec ``py:tests.test_x:f``) becomes ``tests.<layer>.test_x``.

The shared helpers stay at tests/ top level (conftest.py, card_game_checks.py, serve_helpers.py,
solo_whist_play.py, data/): pytest puts tests/ on sys.path for its conftest.py, so every folder imports
them as before.  Test file names stay unique across folders (no __init__.py: pytest's default import
mode), which the script checks.
"""

from __future__ import annotations

import fnmatch
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"

#: The layer folder of each test file (the folders mirror vint_env's layers; ``package``: checks across
#: the whole package, such as the import direction, moved names and bad input at every boundary).
FOLDER = {
    "cards": ["test_cards"],
    "rules": ["test_beats", "test_solo_whist_rules", "test_vint_scoring", "test_vint_rubber", "test_whist_scoring"],
    "games": ["test_games", "test_declared_options", "test_game_spellings", "test_deal_outcome"],
    "envs": ["test_conformance", "test_vint_env", "test_whist_env", "test_solo_whist_env", "test_vint2p",
             "test_vint_obs", "test_seat_views", "test_render_frames", "test_tracking_blocks",
             "test_solo_whist_open_misere", "test_solo_whist_early_end", "test_vint_scoring_cases"],
    "vector": ["test_vector_engine", "test_vector_selfplay", "test_vector_solo_whist", "test_vector_solo_whist_state",
               "test_vector_vint_variants", "test_vector_vs_aec", "test_vector_whist", "test_engine_state_checks"],
    "agents": ["test_agents", "test_rule_bot", "test_rule_bot_seats", "test_double_dummy", "test_pimc",
               "test_pimc_vint2p", "test_two_hand_dd", "test_vint2p_agents", "test_card_network",
               "test_networks_sparse", "test_residual", "test_baselines", "test_ppo_checkpoint",
               "test_checkpoint_trust"],
    "evaluation": ["test_evaluation", "test_evaluation_cli", "test_evaluation_threads", "test_viewer",
                   "test_strict_json", "test_output_paths"],
    "training": ["test_ppo_math", "test_value_targets", "test_rollout_values", "test_config_bounds",
                 "test_stale_temporaries"],
    "wrappers": ["test_wrappers", "test_wrappers_readme", "test_rllib", "test_sb3", "test_tianshou",
                 "test_torchrl", "test_openspiel"],
    "play": ["test_play"],
    "serve": ["test_serve", "test_serve_browser"],
    "docs": ["test_docs", "test_getting_started"],
    "package": ["test_architecture", "test_moved_names", "test_public_apis", "test_fuzz_public_inputs",
                "test_input_errors", "test_adversarial_inputs", "test_cli_errors", "test_atomic", "test_game_as_record"],
}

#: For files FOLDER does not name (new ones): the first pattern that matches the file's stem.
RULES = [
    ("test_training_*", "training"), ("test_ppo_*", "training"), ("test_trainer_*", "training"),
    ("test_vector_*", "vector"), ("test_engine_*", "vector"), ("test_kernel_*", "vector"),
    ("test_serve*", "serve"), ("test_play*", "play"), ("test_wrappers*", "wrappers"),
    ("test_evaluation*", "evaluation"), ("test_match*", "evaluation"), ("test_viewer*", "evaluation"),
    ("test_rule_bot*", "agents"), ("test_pimc*", "agents"), ("test_dd*", "agents"), ("test_agent*", "agents"),
    ("test_baseline*", "agents"), ("test_network*", "agents"),
    ("test_*_env", "envs"), ("test_*_obs", "envs"), ("test_render*", "envs"),
    ("test_*_rules", "rules"), ("test_*_scoring", "rules"), ("test_*_rubber", "rules"),
    ("test_game*", "games"), ("test_docs*", "docs"), ("test_cards*", "cards"),
]

TEXT_SUFFIXES = {".py", ".md", ".txt", ".yml", ".yaml", ".toml", ".cfg", ".ini", ".json", ".html", ".js", ""}


def folder_of(stem: str) -> str | None:
    for folder, stems in FOLDER.items():
        if stem in stems:
            return folder
    return next((folder for pattern, folder in RULES if fnmatch.fnmatch(stem, pattern)), None)


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True, text=True).stdout


def deeper(text: str) -> str:
    """The paths a moved file builds from its own location, one folder deeper."""
    text = re.sub(r"(__file__\)\.resolve\(\))\.parents\[1\]", r"\1.parents[2]", text)
    text = re.sub(r"(__file__\)\.resolve\(\))\.parent\.parent\b", r"\1.parents[2]", text)
    text = re.sub(r"(__file__\)\.resolve\(\))\.parent( / \"data\")", r"\1.parents[1]\2", text)
    return text


def main(argv: list[str]) -> int:
    check = "--check" in argv
    top = sorted(p for p in TESTS.glob("test_*.py"))
    plan = {p: folder_of(p.stem) for p in top}
    unknown = [p.name for p, f in plan.items() if f is None]
    for p, f in plan.items():
        print(f"{p.relative_to(ROOT)} -> tests/{f}/{p.name}" if f else f"{p.relative_to(ROOT)}: NO FOLDER")
    if unknown:
        print(f"no folder for {unknown}: add each to FOLDER in {Path(__file__).relative_to(ROOT)}", file=sys.stderr)
        return 1
    names = [p.name for p in TESTS.rglob("test_*.py")]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        print(f"test file names used twice: {twice} (pytest's default import mode needs them unique)",
              file=sys.stderr)
        return 1
    if check or not plan:
        return 0
    for p, f in plan.items():
        (TESTS / f).mkdir(exist_ok=True)
        git("mv", str(p.relative_to(ROOT)), f"tests/{f}/{p.name}")
        moved = TESTS / f / p.name
        moved.write_text(deeper(moved.read_text()))
    new_place = {p.name: f"tests/{f}/{p.name}" for p, f in plan.items()}
    new_module = {p.stem: f"tests.{f}.{p.stem}" for p, f in plan.items()}
    old = re.compile(r"\btests/(test_[A-Za-z0-9_]+\.py)\b")
    old_module = re.compile(r"\btests\.(test_[A-Za-z0-9_]+)\b")
    for rel in git("ls-files").splitlines():
        path = ROOT / rel
        if path.suffix not in TEXT_SUFFIXES or not path.is_file() or path.is_symlink():
            continue
        try:
            text = path.read_text()
        except UnicodeDecodeError:
            continue
        new = old.sub(lambda m: new_place.get(m.group(1), m.group(0)), text)
        new = old_module.sub(lambda m: new_module.get(m.group(1), m.group(0)), new)
        if new != text:
            path.write_text(new)
    print(f"moved {len(plan)} test files; now commit: git add -A && git commit")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
