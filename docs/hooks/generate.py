"""MkDocs hook: write the parts of the docs that come from the code, at build time.

A page asks for a generated part with a marker comment on a line of its own:

    <!-- generated: observation-table vint_v0 -->   the env's observation layout, block by block
    <!-- generated: rendered-example vint_v0 -->    one whole deal between rule bots, as render() shows it
    <!-- generated: baselines-table shipped -->     the shipped baselines' measured results, from their manifests
    <!-- generated: options-table vint_v0 -->       the env's options, from the game's declared parameters
    <!-- generated: agent-kinds all -->             every kind of agent spec with its options, from their declarations
    <!-- generated: bench-sets bench-v1 -->          the benchmark's frozen board sets: seeds and SHA-256
    <!-- generated: ladder-table whist -->           a ladder's tables, from its results file docs/benchmark/whist.json

So the tables in the docs are the layout in code (there is no second copy to keep equal), and the
example is what the current renderer prints. Tests call `expand` on the pages (tests/docs/test_docs.py).
"""

from __future__ import annotations

import re
from pathlib import Path

MARKER = re.compile(r"^<!-- generated: ([a-z-]+) ([a-z0-9_-]+) -->$", re.M)


def observation_table(name: str) -> str:
    """The env's observation layout as a Markdown table (block, offset, shape, meaning)."""
    from vint_env import games
    return games.get(name).layout.table()


def rendered_example(name: str, seed: int = 3) -> str:
    """One deal of the env played by the game's rule bots, rendered at its end, in a text block."""
    from vint_env import games
    from vint_env.agents import load_agent

    game = games.get(name)
    env = game.env(render_mode="ansi")
    env.reset(seed=seed)
    bots = {agent: load_agent("rule", game=game.name) for agent in env.possible_agents}
    for i, bot in enumerate(bots.values()):
        bot.reset(seed=seed * 10 + i)
    for agent in env.agent_iter():
        obs, _, termination, truncation, _ = env.last()
        env.step(None if termination or truncation else bots[agent].act(obs, env=env, agent=agent))
    return f"```text\n{env.render().rstrip()}\n```"


def options_table(name: str) -> str:
    """The game's declared options (:mod:`vint_env.games.params`) as a Markdown table."""
    from vint_env import games

    def text(value) -> str:
        return "None" if value is None else f"`{value!r}`" if isinstance(value, str) else f"`{value}`"

    rows = ["| option | type | default | values | meaning |", "|---|---|---|---|---|"]
    for p in games.get(name).parameters:
        if p.allowed is not None:
            values = ", ".join(text(v) for v in p.allowed) + (", None" if p.optional else "")
        elif p.minimum is not None:
            values = f"{'>' if p.exclusive_minimum else '>='} {p.minimum:g}" + (f", <= {p.maximum:g}" if p.maximum else "")
        else:
            values = "any"
        rows.append(f"| `{p.name}` | {p.type.__name__} | {text(p.default)} | {values} | {p.doc} |")
    return "\n".join(rows)


def baselines_table(which: str) -> str:
    """The shipped baselines (``which`` = ``shipped``) as their manifests record them."""
    if which != "shipped":
        raise ValueError(f"baselines-table takes 'shipped', got {which!r}")
    from vint_env.agents.learned.baseline import results_table
    return results_table()


def agent_kinds(which: str) -> str:
    """Every kind of agent spec (``which`` = ``all``, or ``web``: those a `vint-serve` request may name),
    from the declarations of :mod:`vint_env.agents.spec`."""
    if which not in ("all", "web"):
        raise ValueError(f"agent-kinds takes 'all' or 'web', got {which!r}")
    from vint_env.agents.spec import kinds_table
    return kinds_table(web_only=which == "web")


BENCHMARK_RESULTS = Path(__file__).resolve().parents[1] / "benchmark"


def bench_sets(version: str) -> str:
    """The frozen board sets of a benchmark version (its seeds and SHA-256)."""
    from vint_env.evaluation.bench_sets import VERSION, sets_table
    if version.replace("_", "-") != VERSION:
        raise ValueError(f"bench-sets takes {VERSION!r}, got {version!r}")
    return sets_table()


def ladder_table(key: str) -> str:
    """The tables of the ladder results file docs/benchmark/KEY.json (``whist``, ``vint2p_way4``), kept in
    the repository; a sentence saying so while it is not there."""
    import json
    from vint_env.evaluation.ladder import results_table
    path = BENCHMARK_RESULTS / f"{key}.json"
    if not path.is_file():
        return f"*Not measured yet* (no `docs/benchmark/{key}.json`)."
    return results_table(json.loads(path.read_text(encoding="utf-8")))


GENERATORS = {"observation-table": observation_table, "rendered-example": rendered_example,
              "baselines-table": baselines_table, "options-table": options_table, "agent-kinds": agent_kinds,
              "bench-sets": bench_sets, "ladder-table": ladder_table}


def expand(markdown: str) -> str:
    """The page with every generated-part marker replaced by its text."""
    def replace(match: re.Match) -> str:
        kind, name = match.groups()
        if kind not in GENERATORS:
            raise ValueError(f"unknown generated part {kind!r} (known: {sorted(GENERATORS)})")
        return GENERATORS[kind](name)
    return MARKER.sub(replace, markdown)


def on_page_markdown(markdown: str, **kwargs) -> str:
    return expand(markdown)
