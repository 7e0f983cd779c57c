"""Agent spec ``baseline``: the trained policy shipped with the package for a game.

A shipped baseline is two files in ``vint_env/baselines/`` (:data:`vint_env.baselines.DIR`):

- ``<game>.pt``: a PPO checkpoint (:mod:`vint_env.agents.learned.policy`, the policy only), loaded with
  :meth:`PPOAgent.load <vint_env.agents.learned.policy.PPOAgent.load>` and its checks;
- ``<game>.json``: its manifest: the command that produced it, the config, budget, machine and git
  commit, the SHA-256 of the checkpoint, the observation layout it was trained for (name, size and
  blocks), its measured duplicate results (see ``docs/baselines.md``) and ``standalone``: ``true``
  when the network chooses every action itself, ``false`` when it is the rule bot corrected by the
  network (:mod:`~vint_env.agents.learned.residual`), which the loader checks against the checkpoint.

Agent spec ``residual``: the critic-corrected rule bot of a game (:func:`load_residual`), from
``<game>_residual.pt`` + ``.json`` when they ship, else from ``<game>.pt`` when that baseline is one.

:func:`load_baseline` refuses, with a :class:`~vint_env.agents.learned.policy.CheckpointError` that names
the game and the command that retrains it: a game with no checkpoint, a manifest that does not
describe the file beside it, a checkpoint trained for another observation layout than the game has
now (observation blocks are added as the package grows), and a corrupt file.

>>> from vint_env.agents.learned.baseline import layout_signature
>>> layout_signature("whist")["size"] == __import__("vint_env").games.get("whist").observation_size
True
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from ... import games
from ...games import Game
from ...points import format_ci

MANIFEST_FORMAT = "vint-env/baseline-manifest"
MANIFEST_VERSION = 1


def default_folder() -> Path:
    """The folder of the shipped baselines, ``vint_env/baselines/``."""
    from ...baselines import DIR
    return DIR


RESIDUAL_SUFFIX = "_residual"    # <game>_residual.pt: a residual agent shipped beside a standalone baseline


def checkpoint_path(game: Game | str, folder: str | Path | None = None, suffix: str = "") -> Path:
    return Path(folder or default_folder()) / f"{games.get(game).name}{suffix}.pt"


def manifest_path(game: Game | str, folder: str | Path | None = None, suffix: str = "") -> Path:
    return Path(folder or default_folder()) / f"{games.get(game).name}{suffix}.json"


def shipped(folder: str | Path | None = None) -> tuple[str, ...]:
    """The games with a baseline checkpoint in ``folder`` (default: the shipped ones)."""
    return tuple(g.name for g in games.all_games() if checkpoint_path(g, folder).is_file())


def reproduce_command(game: Game | str) -> str:
    """The command that trains and measures the baseline of ``game``."""
    return f"python -m training.baseline --game {games.get(game).name}"


def layout_signature(game: Game | str) -> dict:
    """The game's observation layout as a manifest records it: name, size and its blocks in order,
    each ``"name:shape"`` (``"played:4x52"``)."""
    layout = games.get(game).layout
    return {"name": layout.name, "size": layout.size,
            "blocks": [f"{b.name}:{'x'.join(map(str, b.shape))}" for b in layout.blocks.values()]}


def file_sha256(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _error(record: Game, message: str):
    from .policy import CheckpointError
    return CheckpointError(f"baseline for {record.name!r}: {message}; to train one: {reproduce_command(record)}")


def read_manifest(game: Game | str, folder: str | Path | None = None, suffix: str = "") -> dict:
    """The manifest of ``game``'s baseline (its record or name), checked for its format and game."""
    record = games.get(game)
    game = record.name
    path = manifest_path(record, folder, suffix)
    if not path.is_file():
        raise _error(record, f"no manifest {str(path)!r} beside the checkpoint")
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise _error(record, f"manifest {str(path)!r} is not readable JSON ({e})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != MANIFEST_FORMAT:
        raise _error(record, f"{str(path)!r} is not a baseline manifest (no format tag {MANIFEST_FORMAT!r})")
    if manifest.get("version") != MANIFEST_VERSION:
        raise _error(record, f"manifest {str(path)!r} has version {manifest.get('version')!r}; "
                           f"this vint-env reads version {MANIFEST_VERSION}")
    if manifest.get("game") != game:
        raise _error(record, f"manifest {str(path)!r} describes game {manifest.get('game')!r}")
    checkpoint, observation = manifest.get("checkpoint"), manifest.get("observation")
    wrong = [name for name, ok in (
        ("checkpoint (a mapping with a 'sha256' string)",
         isinstance(checkpoint, dict) and isinstance(checkpoint.get("sha256"), str)),
        ("observation (a mapping with an integer 'size' and a list of 'blocks')",
         isinstance(observation, dict) and isinstance(observation.get("size"), int)
         and isinstance(observation.get("blocks"), list)),
        ("budget (a mapping)", isinstance(manifest.get("budget", {}), dict)),
        ("results (a mapping)", isinstance(manifest.get("results", {}), dict)),
        ("standalone (true or false)", isinstance(manifest.get("standalone", False), bool))) if not ok]
    if wrong:
        raise _error(record, f"manifest {str(path)!r} has wrong-typed fields: {'; '.join(wrong)}")
    return manifest


def stale_layout(manifest: dict, game: Game | str) -> str | None:
    """Why the layout a manifest records differs from the game's layout now, or None if they are equal."""
    record = games.get(game)
    then, now = manifest.get("observation") or {}, layout_signature(record)
    if then.get("size") == now["size"] and then.get("blocks") == now["blocks"]:
        return None
    old = [str(b).partition(":")[0] for b in then.get("blocks") or []]
    new = [b.partition(":")[0] for b in now["blocks"]]
    added, removed = [b for b in new if b not in old], [b for b in old if b not in new]
    detail = "; ".join(part for part in (f"blocks added since: {', '.join(added)}" if added else "",
                                         f"blocks removed since: {', '.join(removed)}" if removed else "")
                       if part) or "blocks reshaped or reordered"
    return (f"the shipped checkpoint was trained for observations of size {then.get('size')} (layout "
            f"{then.get('name')!r}), but {record.name} observations now have size {now['size']} ({detail})")


def plays_alone(agent) -> bool:
    """Whether a loaded agent is a network choosing every action itself (no rule bot consulted)."""
    from .residual import ResidualAgent
    return not isinstance(agent, ResidualAgent)


def load_baseline(game: str, folder: str | Path | None = None, greedy: bool = True, seed: int | None = None,
                  suffix: str = ""):
    """The shipped baseline of ``game`` (its record, or its name: resolved once here and passed on as the
    record) as a :class:`~vint_env.agents.learned.policy.PPOAgent` named ``"baseline"`` (or the
    :class:`~vint_env.agents.learned.residual.ResidualAgent` its checkpoint describes).

    ``folder``: another folder of ``<game>.pt`` + ``<game>.json`` (what ``python -m training.baseline
    --out FOLDER`` writes); default the package's ``vint_env/baselines/``.  A manifest's ``standalone``
    must say what the checkpoint plays: a network alone (``true``) or the rule bot corrected (``false``)."""
    from .policy import CheckpointError, PPOAgent
    record = games.get(game)
    path = checkpoint_path(record, folder, suffix)
    if not path.is_file():
        have = shipped(folder)
        where = "ships with this vint-env" if folder is None else f"is in {str(folder)!r}"
        raise _error(record, f"no checkpoint {where} (baselines there: {', '.join(have) if have else 'none'})")
    manifest = read_manifest(record, folder, suffix)
    recorded = (manifest.get("checkpoint") or {}).get("sha256")
    if recorded != file_sha256(path):
        raise _error(record, f"{str(path)!r} is not the checkpoint its manifest describes (SHA-256 differs: "
                             f"a damaged file or a half-finished update)")
    why = stale_layout(manifest, record)
    if why:
        raise _error(record, why)
    try:
        agent = PPOAgent.load(path, game=record, greedy=greedy, seed=seed)
    except CheckpointError as e:
        raise _error(record, str(e)) from None
    claim = manifest.get("standalone")
    if claim is not None and claim != plays_alone(agent):
        raise _error(record, f"its manifest says standalone: {str(claim).lower()}, but {str(path)!r} "
                             + ("is the rule bot corrected by a network (a residual agent)" if claim
                                else "is a network that plays alone"))
    agent.name = "baseline"
    return agent


def load_residual(game: Game | str, folder: str | Path | None = None, greedy: bool = True, seed: int | None = None):
    """Agent spec ``residual``: ``game``'s rule bot corrected by a critic network, from ``<game>_residual.pt``
    (+ manifest) in ``folder`` (default the shipped baselines) if there is one, else from ``<game>.pt`` when that
    baseline is a residual agent; a :class:`CheckpointError` when neither is."""
    record = games.get(game)
    suffix = RESIDUAL_SUFFIX if checkpoint_path(record, folder, RESIDUAL_SUFFIX).is_file() else ""
    agent = load_baseline(record, folder, greedy, seed, suffix)
    if plays_alone(agent):
        raise _error(record, f"no residual agent: {str(checkpoint_path(record, folder, suffix))!r} is a network "
                             f"that plays alone (agent spec 'baseline'), and no {record.name}{RESIDUAL_SUFFIX}.pt "
                             f"ships beside it")
    agent.name = "residual"
    return agent


def results_table(folder: str | Path | None = None) -> str:
    """A Markdown table of the baselines in ``folder`` (default: the shipped ones), read from their
    manifests: what plays (the network alone, or the rule bot corrected by it), budget, measured margins
    with 95% CIs, boards; a ``residual`` agent shipped beside a game's baseline has a row of its own.
    Games with none say so; a baseline trained for another observation layout than the game's current
    one is marked stale."""
    rows = ["| game | agent | training (wall clock, env steps) | vs random: margin [95% CI] "
            "| vs rule: margin [95% CI] | boards per opponent (seed) |",
            "|---|---|---|---|---|---|"]
    for game in games.names():
        for suffix in ("", RESIDUAL_SUFFIX):
            path = manifest_path(game, folder, suffix)
            if not path.is_file():
                if not suffix:
                    rows.append(f"| {game} | none ships | | | | |")
                continue
            spec = "`residual`" if suffix else "`baseline`"
            try:
                manifest = read_manifest(game, folder, suffix)
            except ValueError as e:
                rows.append(f"| {game} | {spec} | unreadable manifest: {e} | | | |")
                continue
            try:
                rows.append(_results_row(game, spec, manifest))
            except (KeyError, TypeError, AttributeError, ValueError) as e:
                rows.append(f"| {game} | {spec} | malformed manifest results ({type(e).__name__}: {e}) | | | |")
    return "\n".join(rows)


def _results_row(game: str, spec: str, manifest: dict) -> str:
    """One row of :func:`results_table` from a checked manifest."""
    budget, results = manifest.get("budget", {}), manifest.get("results", {})
    cells = []
    for opp in ("random", "rule"):
        r = results.get("vs", {}).get(opp)
        if r is None:
            cells.append("not measured")
            continue
        m = r["margin_per_board"]
        cells.append(f"{format_ci(m['mean'], m['low'], m['high'])} ({r['verdict'].split(' (')[0]})")
    stale = " **stale: trained for another observation layout**" if stale_layout(manifest, game) else ""
    plays = {True: "network alone", False: "rule bot + critic"}.get(manifest.get("standalone"), "?")
    limit = f"of a {budget['max_minutes']:g} min budget" if budget.get("max_minutes") else "(no time limit)"
    steps = budget.get("env_steps") or 0
    cached = " (teacher data from the cache)" if budget.get("teacher_cached") else ""
    warm = budget.get("warm_start")      # a run started from an earlier run's clone: that clone's minutes
    if isinstance(warm, dict) and warm.get("minutes"):
        cached += f", after a {warm['minutes']:.0f} min warm start (an earlier run's teacher data and cloning)"
    row = (f"| {game}{stale} | {spec}: {plays} | {budget.get('train_minutes', 0):.0f} min {limit}, "
           f"{steps / 1e6:.2f} M steps{cached} | {cells[0]} | {cells[1]} | {results.get('boards')} "
           f"({results.get('seed')}) |")
    return row
