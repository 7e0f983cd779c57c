"""The parts of the docs that come from the code: written into the pages, and refreshed by the site build.

A page asks for a generated part with a marker comment on a line of its own; the part sits between it and the
end marker, committed, so that a reader of the page on GitHub sees it too:

    <!-- generated: observation-table vint_v0 -->   the env's observation layout, block by block
    <!-- generated: rendered-example vint_v0 -->    one whole deal between rule bots, as render() shows it
    <!-- generated: baselines-table shipped -->     the shipped baselines' measured results, from their manifests
    <!-- generated: options-table vint_v0 -->       the env's options, from the game's declared parameters
    <!-- generated: agent-kinds all -->             every kind of agent spec with its options, from their declarations
    <!-- generated: bench-sets bench-v1 -->          the benchmark's frozen board sets: seeds and SHA-256
    <!-- generated: ladder-table whist -->           a ladder's tables, from its results file docs/benchmark/whist.json
    <!-- generated: config-sections all -->          the training config's sections and their keys (config.py)
    <!-- generated: config-table anneal_lr,ppo -->   keys (or whole sections) of the training config: default, values, meaning
    <!-- generated: files-table vint_env -->         every module of a folder with its docstring's first sentence

    <!-- end generated: python -m docs.hooks.generate -->

``python -m docs.hooks.generate`` (from the repository's root) rewrites every page's generated parts from the
code; ``--check`` only lists the pages whose committed parts are stale (and exits 1), as the test
``tests/docs/test_docs.py`` does.  The site build (this file is its MkDocs hook) generates the same parts again
and drops the markers, so a site built from a clone whose pages are stale still shows the code as it is.

So the tables in the docs are the code (there is no second copy to keep equal by hand), and the example is
what the current renderer prints.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
#: A generated part's first line: ``<!-- generated: KIND NAME -->`` (NAME: letters, digits, ``_ - . ,``).
BEGIN = re.compile(r"^<!-- generated: ([a-z-]+) ([a-z0-9_.,-]+) -->$")
#: Its last line (what the first line of the part asks for is between them).
END = "<!-- end generated: python -m docs.hooks.generate -->"
_END = re.compile(r"^<!-- end generated\b.*-->$")


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


BENCHMARK_RESULTS = DOCS / "benchmark"


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


def _cell(text: str) -> str:
    """Text for a Markdown table cell: a ``|`` escaped (it would end the cell), and outside code spans a ``*``
    (emphasis) and a ``<`` (an HTML tag: ``<runs_dir>`` would vanish)."""
    parts = text.split("`")
    for i, part in enumerate(parts):
        part = part.replace("|", "\\|")
        parts[i] = part if i % 2 else part.replace("*", "\\*").replace("<", "&lt;")
    return "`".join(parts)


def _yaml_value(value) -> str:
    """A config value as a YAML file writes it (``true``, ``null``, ``[256, 256]``, ``""``)."""
    import yaml
    if value == "":
        return '""'
    return yaml.safe_dump(value, default_flow_style=True, width=10 ** 6).removesuffix("\n...\n").strip()


def config_comments() -> dict[str, str]:
    """Each training config key's meaning: the comment on its declaration's line in ``config.py``
    (``name: type = key(default, ...)  # meaning``)."""
    from vint_env.training import config
    names = set(config.FIELDS)
    by_line: dict[int, list[tokenize.TokenInfo]] = {}
    with open(config.__file__, encoding="utf-8") as f:
        for t in tokenize.generate_tokens(f.readline):
            if t.type not in (tokenize.NEWLINE, tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER):
                by_line.setdefault(t.start[0], []).append(t)
    comments = {}
    for tokens in by_line.values():
        if (len(tokens) > 2 and tokens[0].string in names and tokens[1].string == ":"
                and tokens[-1].type == tokenize.COMMENT):
            comments[tokens[0].string] = tokens[-1].string.lstrip("#").strip()
    return comments


def config_keys(which: str) -> list[str]:
    """The keys ``which`` names: comma-separated keys or sections of the config, in that order."""
    from vint_env.training import config
    keys = []
    for part in which.split(","):
        if part in config.SECTIONS:
            keys += config.SECTIONS[part]
        elif part in config.FIELDS:
            keys.append(part)
        else:
            raise ValueError(f"config-table: {part!r} is neither a section nor a key of the training config "
                             f"(sections: {sorted(config.SECTIONS)})")
    return keys


def config_table(which: str) -> str:
    """Keys of the training config as a Markdown table: section, default, admitted values, meaning, all read
    from their declarations (``key(default, ge=..., le=...)  # meaning`` in ``vint_env/training/config.py``)."""
    from vint_env.training import config
    comments = config_comments()
    defaults = config.PPOConfig().to_flat()
    rows = ["| key | section | default | values | meaning |", "|---|---|---|---|---|"]
    for name in config_keys(which):
        if name not in comments:
            raise ValueError(f"config-table: key {name!r} has no comment on its line in config.py to say what it means")
        bounds = config.FIELDS[name].metadata["range"]       # a number's range, or the choices; else unbounded
        values = (str(bounds) if bounds.choices is not None
                  else str(bounds).removeprefix("in ") if (bounds.lo, bounds.hi) != (None, None) else "")
        rows.append(f"| `{name}` | `{config.SECTION_OF[name]}` | {_cell(f'`{_yaml_value(defaults[name])}`')} | "
                    f"{_cell(values)} | {_cell(comments[name])} |")
    return "\n".join(rows)


def config_sections(which: str) -> str:
    """The training config's sections (``which`` = ``all``): each with its keys and its dataclass's docstring."""
    if which != "all":
        raise ValueError(f"config-sections takes 'all', got {which!r}")
    from vint_env.training import config
    rows = ["| section | keys | what it holds |", "|---|---|---|"]
    for section, keys in config.SECTIONS.items():
        doc = " ".join((config.SECTION_TYPES[section].__doc__ or "").split())
        rows.append(f"| `{section}` | {', '.join(f'`{k}`' for k in keys)} | {_cell(doc)} |")
    return "\n".join(rows)


_ROLE = re.compile(r":[a-z]+:`~?([^`]+)`")


def first_sentence(docstring: str) -> str:
    """A docstring's first sentence (of its first paragraph), Sphinx roles written as code."""
    paragraph = " ".join(docstring.strip().split("\n\n")[0].split())
    end = re.search(r"\.(\s|$)(?=[A-Z`(]|$)", paragraph)
    sentence = paragraph[:end.start() + 1] if end else paragraph
    sentence = _ROLE.sub(lambda m: f"`{m.group(1).rsplit('.', 1)[-1] if m.group(0).count('~') else m.group(1)}`",
                         sentence)
    return sentence.replace("``", "`")


def files_table(folder: str) -> str:
    """Every Python module of ``folder`` (relative to the repository's root) with its docstring's first
    sentence, read from the source (nothing is imported)."""
    top = ROOT / folder
    if not top.is_dir():
        raise ValueError(f"files-table: no folder {folder!r} in the repository")
    rows = ["| file | what it is |", "|---|---|"]
    for path in sorted(top.rglob("*.py"), key=lambda p: p.relative_to(top).parts):
        if "__pycache__" in path.parts:
            continue
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
        if not doc:
            raise ValueError(f"files-table: {path.relative_to(ROOT)} has no docstring to say what it is")
        rows.append(f"| `{path.relative_to(top).as_posix()}` | {_cell(first_sentence(doc))} |")
    return "\n".join(rows)


GENERATORS = {"observation-table": observation_table, "rendered-example": rendered_example,
              "baselines-table": baselines_table, "options-table": options_table, "agent-kinds": agent_kinds,
              "bench-sets": bench_sets, "ladder-table": ladder_table, "config-table": config_table,
              "config-sections": config_sections, "files-table": files_table}


def generate(kind: str, name: str) -> str:
    """The text of the generated part ``kind name``."""
    if kind not in GENERATORS:
        raise ValueError(f"unknown generated part {kind!r} (known: {sorted(GENERATORS)})")
    return GENERATORS[kind](name).strip("\n")


def regenerate(markdown: str) -> str:
    """The page with each generated part written anew between its marker and :data:`END` (a marker with no
    end yet gets one): the text a committed page holds."""
    lines = markdown.split("\n")
    out, i = [], 0
    while i < len(lines):
        out.append(lines[i])
        begin = BEGIN.match(lines[i])
        i += 1
        if begin:
            end = next((j for j in range(i, len(lines)) if _END.match(lines[j]) or BEGIN.match(lines[j])), None)
            if end is not None and _END.match(lines[end]):
                i = end + 1
            out += ["", generate(*begin.groups()), "", END]
    return "\n".join(out)


def expand(markdown: str) -> str:
    """The page as the site shows it: every generated part written anew, the markers dropped."""
    return "\n".join(line for line in regenerate(markdown).split("\n") if not (BEGIN.match(line) or _END.match(line)))


def pages_with_parts() -> list[Path]:
    """The docs pages that hold a generated part."""
    return [p for p in sorted(DOCS.rglob("*.md"))
            if any(BEGIN.match(line) for line in p.read_text(encoding="utf-8").split("\n"))]


def stale_pages() -> list[Path]:
    """The pages whose committed generated parts differ from what the code generates now."""
    return [p for p in pages_with_parts() if regenerate(text := p.read_text(encoding="utf-8")) != text]


def on_page_markdown(markdown: str, **kwargs) -> str:
    return expand(markdown)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m docs.hooks.generate",
                                     description="Write the generated parts of the docs pages from the code.")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; list the pages whose generated parts are stale and exit 1 if any")
    args = parser.parse_args(argv)
    if args.check:
        stale = stale_pages()
        for path in stale:
            print(f"stale: {path.relative_to(DOCS.parent)} (run: python -m docs.hooks.generate)")
        return 1 if stale else 0
    for path in pages_with_parts():
        text = path.read_text(encoding="utf-8")
        new = regenerate(text)
        if new != text:
            path.write_text(new, encoding="utf-8")
            print(f"wrote {path.relative_to(DOCS.parent)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
