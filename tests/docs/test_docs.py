"""The documentation: generated tables equal the layouts in code, links stay inside the repository, the site builds."""

import importlib.util
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.rglob("*.md"))
ENV_PAGES = {"vint_v0": "envs/vint.md", "whist_v0": "envs/whist.md", "solo_whist_v0": "envs/solo_whist.md",
             "vint2p_v0": "envs/vint2p.md"}


def load_hook():
    spec = importlib.util.spec_from_file_location("docs_generate_hook", DOCS / "hooks" / "generate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("env_name", sorted(ENV_PAGES))
def test_env_page_shows_the_observation_layout_generated_from_code(env_name):
    import vint_env
    page = (DOCS / ENV_PAGES[env_name]).read_text()
    assert f"<!-- generated: observation-table {env_name} -->" in page
    built = load_hook().expand(page)
    layout = getattr(vint_env, env_name).raw_env.LAYOUT
    assert layout.table() in built
    assert f"| total | | {layout.size} | |" in built
    assert "<!-- generated:" not in built


def test_rendered_example_is_a_finished_deal():
    text = load_hook().rendered_example("vint_v0")
    assert text.startswith("```text\nVint") and "phase over" in text and "Tricks taken" in text


def test_unknown_generated_part_is_an_error():
    with pytest.raises(ValueError, match="unknown generated part 'nonsense'"):
        load_hook().expand("<!-- generated: nonsense vint_v0 -->")



GENERATED_PAGES = [p for p in PAGES if "<!-- generated:" in p.read_text()]


def test_every_page_with_a_generated_part_is_checked():
    assert len(GENERATED_PAGES) >= 9 and DOCS / "training.md" in GENERATED_PAGES
    assert DOCS / "architecture.md" in GENERATED_PAGES


@pytest.mark.parametrize("path", GENERATED_PAGES, ids=lambda p: str(p.relative_to(DOCS)))
def test_committed_generated_parts_are_what_the_code_generates(path):
    """A reader on GitHub sees the committed parts: they must equal what the code generates now."""
    import difflib
    text = path.read_text()
    fresh = load_hook().regenerate(text)
    diff = "\n".join(list(difflib.unified_diff(text.split("\n"), fresh.split("\n"), "committed", "generated",
                                               lineterm=""))[:40])
    assert fresh == text, f"{path.relative_to(ROOT)} is stale: run `python -m docs.hooks.generate`\n{diff}"


def test_a_stale_part_is_found_and_rewritten(tmp_path, monkeypatch, capsys):
    hook = load_hook()
    page = (DOCS / "envs" / "whist.md").read_text()
    assert "| `max_deals` | int | `100` |" in page
    (tmp_path / "envs").mkdir()
    stale = tmp_path / "envs" / "whist.md"
    stale.write_text(page.replace("| `max_deals` | int | `100` |", "| `max_deals` | int | `50` |"))
    (tmp_path / "plain.md").write_text("no generated part\n")
    monkeypatch.setattr(hook, "DOCS", tmp_path)
    assert hook.stale_pages() == [stale]
    assert hook.main(["--check"]) == 1 and "stale: " in capsys.readouterr().out
    assert stale.read_text() != page                     # --check writes nothing
    assert hook.main([]) == 0
    assert stale.read_text() == page and hook.main(["--check"]) == 0


def test_a_new_marker_gets_its_part_and_an_end_marker():
    hook = load_hook()
    page = "# Title\n\n<!-- generated: config-table duplicate -->\n\nafter\n"
    written = hook.regenerate(page)
    assert written.split("\n")[2:8] == ["<!-- generated: config-table duplicate -->", "",
                                         hook.config_table("duplicate").split("\n")[0],
                                         "|---|---|---|---|---|", hook.config_table("duplicate").split("\n")[2], ""]
    assert hook.END in written and hook.regenerate(written) == written and written.endswith("\nafter\n")
    assert "<!--" not in hook.expand(written)


def test_config_tables_read_each_keys_declaration():
    from vint_env.training.config import PPOConfig
    hook = load_hook()
    assert PPOConfig().ppo.anneal_lr is True and PPOConfig().cloning.bc_epochs == 4
    table = hook.config_table("anneal_lr,cloning")
    assert "| `anneal_lr` | `ppo` | `true` |  | linear decay to 0 over the budget (see max_minutes) |" in table
    assert "| `bc_epochs` | `cloning` | `4` | [0, 10000] | cloning passes over the teacher data |" in table
    assert table.count("\n| `bc_") == 5                   # a section stands for its keys
    with pytest.raises(ValueError, match="neither a section nor a key"):
        hook.config_table("learnig_rate")


def test_a_config_key_without_a_meaning_is_an_error(monkeypatch):
    hook = load_hook()
    monkeypatch.setattr(hook, "config_comments", lambda: {})
    with pytest.raises(ValueError, match="key 'duplicate' has no comment"):
        hook.config_table("duplicate")


def test_the_file_table_has_every_module_of_the_package():
    table = load_hook().files_table("vint_env")
    modules = sorted((ROOT / "vint_env").rglob("*.py"))
    assert table.count("\n| `") == len(modules) > 100
    assert "| `evaluation/report.py` | Summaries of a match: margin with its confidence interval, boards won, " in table


def test_every_file_the_architecture_page_names_exists():
    text = (DOCS / "architecture.md").read_text()
    named = set(re.findall(r"\bvint_env/[A-Za-z0-9_/]+\.py\b", text))
    assert len(named) >= 15
    missing = sorted(p for p in named if not (ROOT / p).is_file())
    assert not missing, f"docs/architecture.md names files that do not exist: {missing}"


#: What the project's developers read and users do not have (the rules specification, its seed books, the design
#: notes): nothing in the repository may cite it.  Split so that this file does not cite it either.
DEVELOPER_FILES = ("../" "shared", "shared" "/", "RULES" ".md", "DESIGN" ".md", "seed" " 00", "seeds" "/")
TEXT_SUFFIXES = {".py", ".md", ".json", ".yaml", ".yml", ".toml", ".txt", ".html", ".js", ".css", ".cfg", ".sh", ""}


def test_nothing_in_the_repository_cites_the_developers_files():
    """Tests, docs, the package, the scripts, configs and CI name the project's own docs (docs/rules, the rule's
    section), never a file outside the repository."""
    found = []
    tops = [ROOT / d for d in ("tests", "docs", "vint_env", "training", "benchmarks", "examples", "configs", ".ci")]
    files = [ROOT / f for f in ("README.md", "mkdocs.yml", "pyproject.toml")]
    for top in tops:
        files += [p for p in top.rglob("*") if p.is_file() and p.suffix in TEXT_SUFFIXES and "__pycache__" not in p.parts]
    for path in files:
        text = path.read_text(errors="replace")
        found += [f"{path.relative_to(ROOT)}: {w!r}" for w in DEVELOPER_FILES if w in text]
    assert not found, found


EXTERNAL = re.compile(r"\]\((?:https?:)?//|<https?://|href=[\"'](?:https?:)?//|src=[\"'](?:https?:)?//")


@pytest.mark.parametrize("path", [ROOT / "README.md", *PAGES], ids=lambda p: str(p.relative_to(ROOT)))
def test_pages_link_nowhere_outside_the_repository(path):
    text = path.read_text()
    assert not EXTERNAL.search(text), f"{path.name}: a link out of the repository"
    for wrong in DEVELOPER_FILES:
        assert wrong not in text, f"{path.name} cites {wrong!r}, which users do not have"


@pytest.mark.parametrize("path", [ROOT / "README.md", *PAGES], ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_point_at_files_that_exist(path):
    text = re.sub(r"```.*?```", "", path.read_text(), flags=re.S)
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        assert (path.parent / target).exists(), f"{path.name} links to {target}, which does not exist"


@pytest.mark.skipif(shutil.which("mkdocs") is None and importlib.util.find_spec("mkdocs") is None,
                    reason="needs the docs extra (pip install -e '.[docs]')")
def test_site_builds_strict_with_no_external_links(tmp_path):
    site = tmp_path / "site"
    run = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
                         cwd=ROOT, capture_output=True, text=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert run.returncode == 0, run.stderr[-3000:]
    assert "WARNING" not in run.stderr, run.stderr[-3000:]
    outside = []
    for page in site.rglob("*.html"):
        for match in re.finditer(r"(?:href|src)=[\"']?((?:https?:)?//[^\"' >]+)", page.read_text()):
            outside.append(f"{page.relative_to(site)}: {match.group(1)}")
    assert not outside, "links out of the site:\n" + "\n".join(outside[:20])



def test_every_doctest_is_collected():
    """The test run's paths cover every module with a docstring example, and doctests are on (pyproject.toml)."""
    config = (ROOT / "pyproject.toml").read_text()
    section = config[config.index("[tool.pytest.ini_options]"):]
    testpaths = re.search(r"^testpaths\s*=\s*\[([^\]]*)\]", section, re.M).group(1)
    roots = [ROOT / p for p in re.findall(r'"([^"]+)"', testpaths)]
    assert "--doctest-modules" in re.search(r"^addopts\s*=\s*(.*)$", section, re.M).group(1)
    with_examples = [p for top in ("vint_env", "training", "benchmarks") for p in (ROOT / top).rglob("*.py")
                     if ">>> " in p.read_text()]
    assert len(with_examples) > 30
    outside = [str(p.relative_to(ROOT)) for p in with_examples if not any(r in p.parents for r in roots)]
    assert not outside, f"doctests no test run collects: {outside}"
