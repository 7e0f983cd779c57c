"""The layers as docs/architecture.md draws them: games are named only in vint_env/games, and no import cycles.

Both scans read the source (``ast``) of the whole package, the training scripts, the benchmarks, the experiments and
the docs hooks.
"""

import ast
import pathlib

from vint_env import games

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCANNED = [*sorted((ROOT / "vint_env").rglob("*.py")), *sorted((ROOT / "training").rglob("*.py")),
           *sorted((ROOT / "benchmarks").rglob("*.py")),
           *sorted((ROOT / "experiments").rglob("*.py")), *sorted((ROOT / "docs" / "hooks").rglob("*.py"))]
GAME_NAMES = set(games.names()) | set(games.env_names())


def _names_a_game(node) -> bool:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value in GAME_NAMES
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_names_a_game(e) for e in node.elts)
    return False


def game_name_branches(source: str) -> list[int]:
    """Lines that compare with a game's name (``== "vint"``, ``in ("vint", "whist")``) or key a dict by one."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare) and any(_names_a_game(x) for x in [node.left, *node.comparators]):
            lines.append(node.lineno)
        elif isinstance(node, ast.Dict) and any(k is not None and _names_a_game(k) for k in node.keys):
            lines.append(node.lineno)
        elif isinstance(node, ast.Match) and any(_names_a_game(getattr(c.pattern, "value", None)) for c in node.cases):
            lines.append(node.lineno)
    return lines


def test_the_guard_finds_what_it_looks_for():
    assert game_name_branches('if game == "vint":\n    pass\n') == [1]
    assert game_name_branches('x = g in ("whist", "solo_whist")\n') == [1]
    assert game_name_branches('HELP = {"vint2p_v0": 1}\n') == [1]
    assert game_name_branches('name = "vint"\nif record.partnership:\n    pass\n') == []


def test_no_layer_above_games_branches_on_a_game_name():
    """Per-game knowledge lives in the game records (vint_env/games): every layer above asks the record."""
    found = {}
    for path in SCANNED:
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith("vint_env/games/"):
            continue
        lines = game_name_branches(path.read_text())
        if lines:
            found[rel] = lines
    assert not found, f"game names compared above vint_env/games (file: lines): {found}"


def _imports(path: pathlib.Path, module: str, modules: set[str]) -> set[str]:
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        targets = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            targets = [f"{base}.{a.name}" for a in node.names] + [base]
        for t in targets:
            while t and t not in modules:
                t = t.rpartition(".")[0]
            if t and t != module and not module.startswith(t + "."):
                out.add(t)
    return out


def test_no_import_cycles_in_the_package():
    """Imports point one way, function-level imports included (registry -> policy -> registry and
    pimc <-> pimc_vint2p and the trainer's collectors <-> ppo were cycles)."""
    files = {}
    for path in (ROOT / "vint_env").rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        files[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph = {m: _imports(p, m, set(files)) for m, p in files.items()}
    state: dict[str, int] = {}
    cycle: list[str] = []

    def visit(m, stack):
        state[m] = 1
        for d in sorted(graph[m]):
            if state.get(d) == 1:
                cycle.extend(stack[stack.index(d):] + [m, d] if d in stack else [m, d])
                return True
            if d not in state and visit(d, stack + [m]):
                return True
        state[m] = 2
        return False

    for m in sorted(graph):
        if m not in state and visit(m, []):
            break
    assert not cycle, " -> ".join(cycle)


def test_every_test_file_sits_in_its_layers_folder():
    """tests/ mirrors the layers (docs/architecture.md, "The tests, by layer"): no test file at its top."""
    top = sorted(p.name for p in (ROOT / "tests").glob("test_*.py"))
    assert not top, f"test files at the top of tests/: {top}; move each into its layer's folder"
    names = [p.name for p in (ROOT / "tests").rglob("test_*.py")]
    assert len(names) == len(set(names)), "a test file name is used in two folders"
