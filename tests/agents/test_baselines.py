"""Shipped baselines: agent spec ``baseline`` plays each shipped checkpoint legally, refuses what it
must (no checkpoint, stale observation layout, a file its manifest does not describe, corrupt files),
and the recipe (``python -m training.baseline``) trains, measures and ships a loadable pair."""

import json
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("yaml")

import vint_env.baselines
from training import baseline as recipe
from vint_env import games
from vint_env.agents.learned.baseline import (
    MANIFEST_FORMAT,
    MANIFEST_VERSION,
    RESIDUAL_SUFFIX,
    checkpoint_path,
    file_sha256,
    layout_signature,
    load_baseline,
    manifest_path,
    plays_alone,
    shipped,
)
from vint_env.agents.learned.networks import build_network
from vint_env.agents.learned.policy import CheckpointError, PPOAgent, save_checkpoint
from vint_env.agents.registry import load_agent

ROOT = Path(__file__).resolve().parents[2]


def play_deals(game: str, agent, deals: int = 2, seed: int = 0) -> int:
    """The agent plays every seat of ``deals`` deals; returns its number of decisions (all legal)."""
    env = games.get(game).env()
    decisions = 0
    for d in range(deals):
        env.reset(seed=seed + d)
        for name in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            action = agent.act(obs, env=env, agent=name)
            assert obs["action_mask"][action] == 1, f"{game}: illegal action {action}"
            env.step(action)
            decisions += 1
    return decisions


# ----------------------------------------------------------------------------- what ships
@pytest.mark.parametrize("game", games.names())
def test_shipped_baseline_loads_and_plays_legal_moves(game):
    if not checkpoint_path(game).is_file():
        pytest.skip(f"no baseline checkpoint ships for {game} (vint_env/baselines/{game}.pt is not trained yet)")
    agent = load_agent("baseline", game=game)
    assert agent.name == "baseline" and agent.game == games.get(game).env_name
    assert play_deals(game, agent) > 0
    manifest = json.loads(manifest_path(game).read_text())
    assert manifest["observation"] == layout_signature(game)
    assert manifest["checkpoint"]["sha256"] == file_sha256(checkpoint_path(game))
    assert checkpoint_path(game).stat().st_size < 8e6                   # a few MB at most
    assert manifest["command"].startswith(f"python -m training.baseline --game {game}")
    assert manifest["git"]["commit"] and manifest["budget"]["train_minutes"] > 0
    for opp in ("random", "rule"):
        r = manifest["results"]["vs"][opp]
        m = r["margin_per_board"]
        assert r["boards"] >= 300 and m["low"] <= m["mean"] <= m["high"]
        assert r["command"].startswith(f"vint-eval match --game {game} --a baseline --b {opp}")


def test_package_data_declares_the_baselines():
    tomllib = pytest.importorskip("tomllib")
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    data = pyproject["tool"]["setuptools"]["package-data"]["vint_env.baselines"]
    assert "*.pt" in data and "*.json" in data
    assert Path(vint_env.baselines.__file__).parent == ROOT / "vint_env" / "baselines"


def rule_bots_refuse_to_play(monkeypatch, game: str) -> None:
    """Make every decision of the game's rule bot raise: an agent that consults it fails."""
    def consulted(self, *args, **kwargs):
        raise AssertionError(f"{game}: the rule bot was consulted")
    monkeypatch.setattr(type(games.get(game).rule_agent()), "act", consulted)


@pytest.mark.parametrize("game", games.names())
def test_each_shipped_baseline_plays_as_its_manifest_claims(game, monkeypatch):
    """Each shipped checkpoint loads and plays legal moves with no rule bot in its decisions when its manifest
    says standalone; one that says otherwise is the rule bot corrected, reachable as agent spec residual."""
    if not checkpoint_path(game).is_file():
        pytest.skip(f"no baseline checkpoint ships for {game}")
    manifest = json.loads(manifest_path(game).read_text())
    assert isinstance(manifest.get("standalone"), bool), f"{game}: the manifest must say whether it plays alone"
    if manifest["standalone"]:
        if checkpoint_path(game, suffix=RESIDUAL_SUFFIX).is_file():     # the residual agent it replaced ships beside
            residual = load_agent("residual", game=game)
            assert not plays_alone(residual) and play_deals(game, residual, deals=1) > 0
        rule_bots_refuse_to_play(monkeypatch, game)
        agent = load_agent("baseline", game=game)
        assert plays_alone(agent) and play_deals(game, agent) > 0
    else:
        assert not plays_alone(load_agent("baseline", game=game))
        residual = load_agent("residual", game=game)
        assert residual.name == "residual" and play_deals(game, residual, deals=1) > 0
        rule_bots_refuse_to_play(monkeypatch, game)
        with pytest.raises(AssertionError, match="the rule bot was consulted"):
            play_deals(game, residual, deals=1)


RESIDUAL = {"base": "rule", "margin": 1.0, "actions": "cards"}


def test_a_standalone_claim_is_checked_against_the_checkpoint(tmp_path, monkeypatch):
    fake_baseline(tmp_path, residual=RESIDUAL, standalone=True)     # a residual agent claimed standalone
    with pytest.raises(CheckpointError, match="manifest says standalone: true, but .* is the rule bot corrected"):
        load_baseline("whist", tmp_path)
    fake_baseline(tmp_path, standalone=False)                       # a plain network claimed residual
    with pytest.raises(CheckpointError, match="standalone: false, but .* is a network that plays alone"):
        load_baseline("whist", tmp_path)
    fake_baseline(tmp_path, standalone=True)                        # the truth: it plays with no rule bot
    rule_bots_refuse_to_play(monkeypatch, "whist")
    assert play_deals("whist", load_agent(f"baseline:{tmp_path}", game="whist"), deals=1) == 52
    fake_baseline(tmp_path, standalone="yes")
    with pytest.raises(CheckpointError, match=r"wrong-typed fields: standalone \(true or false\)"):
        load_baseline("whist", tmp_path)


def test_residual_spec_loads_the_residual_files_or_refuses(tmp_path):
    fake_baseline(tmp_path, residual=RESIDUAL, standalone=False)    # today's shipping: the baseline is residual
    agent = load_agent(f"residual:{tmp_path}", game="whist")
    assert agent.name == "residual" and not plays_alone(agent)
    fake_baseline(tmp_path, standalone=True)                        # a standalone baseline, no residual beside it
    with pytest.raises(CheckpointError, match="no residual agent: .* is a network that plays alone .*"
                                              "no whist_residual.pt ships beside it"):
        load_agent(f"residual:{tmp_path}", game="whist")
    fake_baseline(tmp_path, residual=RESIDUAL, standalone=False, suffix="_residual")   # both ship
    assert not plays_alone(load_agent(f"residual:{tmp_path}", game="whist"))
    assert plays_alone(load_agent(f"baseline:{tmp_path}", game="whist"))


# ----------------------------------------------------------------------------- refusals
def fake_baseline(folder: Path, game: str = "whist", obs_size: int | None = None, signature: dict | None = None,
                  residual: dict | None = None, standalone: bool | None = None, suffix: str = ""):
    """A small checkpoint + manifest pair for ``game`` in ``folder`` (what the recipe writes, minus results);
    ``residual``: the checkpoint's residual entry (the rule bot corrected); ``standalone``: the manifest's claim."""
    record = games.get(game)
    obs_size = obs_size or record.observation_size
    torch.manual_seed(0)
    net = build_network("mlp", obs_size, record.num_actions, {"hidden_sizes": [8]})
    pt = save_checkpoint(checkpoint_path(game, folder, suffix), {
        "game": record.env_name, "env_kwargs": {}, "obs_size": obs_size, "num_actions": record.num_actions,
        "network": {"name": "mlp", "kwargs": {"hidden_sizes": [8]}}, "model": net.state_dict(), "config": {},
        **({"residual": residual} if residual else {})})
    manifest = {"format": MANIFEST_FORMAT, "version": MANIFEST_VERSION, "game": game,
                "checkpoint": {"file": pt.name, "sha256": file_sha256(pt)},
                "observation": signature or layout_signature(game),
                **({} if standalone is None else {"standalone": standalone})}
    manifest_path(game, folder, suffix).write_text(json.dumps(manifest))
    return pt, manifest


def test_a_good_pair_loads_from_a_folder_and_by_spec(tmp_path, monkeypatch):
    fake_baseline(tmp_path)
    agent = load_baseline("whist", tmp_path)
    assert isinstance(agent, PPOAgent) and agent.name == "baseline"
    assert play_deals("whist", load_agent(f"baseline:{tmp_path}", game="whist"), deals=1) == 52
    monkeypatch.setattr(vint_env.baselines, "DIR", tmp_path)     # as if shipped
    assert shipped() == ("whist",)
    assert load_agent("baseline", game="whist", seed=3).name == "baseline"


def test_no_checkpoint_for_the_game_names_it(tmp_path, monkeypatch):
    fake_baseline(tmp_path, "whist")
    with pytest.raises(CheckpointError, match=r"baseline for 'solo_whist': no checkpoint is in .*"
                                              r"\(baselines there: whist\).*python -m training.baseline "
                                              r"--game solo_whist"):
        load_baseline("solo_whist", tmp_path)
    monkeypatch.setattr(vint_env.baselines, "DIR", tmp_path / "empty")
    with pytest.raises(CheckpointError, match=r"baseline for 'vint': no checkpoint ships with this vint-env "
                                              r"\(baselines there: none\)"):
        load_agent("baseline", game="vint")


def test_eval_cli_reports_a_missing_baseline(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(vint_env.baselines, "DIR", tmp_path)
    from vint_env.evaluation.cli import main as eval_main
    assert eval_main(["match", "--game", "whist", "--a", "baseline", "--b", "rule", "--boards", "2"]) == 2
    assert "baseline for 'whist': no checkpoint ships" in capsys.readouterr().err


def test_stale_observation_layout_is_refused(tmp_path):
    now = layout_signature("whist")
    old = {"name": now["name"], "size": now["size"] - 56, "blocks": now["blocks"][:-1]}
    fake_baseline(tmp_path, obs_size=old["size"], signature=old)
    last = now["blocks"][-1].partition(":")[0]
    with pytest.raises(CheckpointError, match=rf"baseline for 'whist': the shipped checkpoint was trained for "
                                              rf"observations of size {old['size']} .* now have size "
                                              rf"{now['size']} \(blocks added since: {last}\).*--game whist"):
        load_baseline("whist", tmp_path)
    # a manifest that claims the current layout over a checkpoint of another size: the checkpoint's own check
    fake_baseline(tmp_path, obs_size=now["size"] - 56, signature=now)
    with pytest.raises(CheckpointError, match=rf"expects observations of size {now['size'] - 56}"):
        load_baseline("whist", tmp_path)


def test_a_file_its_manifest_does_not_describe_is_refused(tmp_path):
    pt, manifest = fake_baseline(tmp_path)
    data = pt.read_bytes()
    pt.write_bytes(data[: len(data) // 2])
    with pytest.raises(CheckpointError, match="is not the checkpoint its manifest describes"):
        load_baseline("whist", tmp_path)
    # a corrupt file whose manifest does match it: the checkpoint loader's refusal, naming the game
    manifest["checkpoint"]["sha256"] = file_sha256(pt)
    manifest_path("whist", tmp_path).write_text(json.dumps(manifest))
    with pytest.raises(CheckpointError, match=r"baseline for 'whist': .*corrupt or not a torch file"):
        load_baseline("whist", tmp_path)


@pytest.mark.parametrize("damage, message", [
    (lambda p: p.unlink(), "no manifest"),
    (lambda p: p.write_text("{not json"), "not readable JSON"),
    (lambda p: p.write_text(json.dumps({"format": "x"})), "is not a baseline manifest"),
    (lambda p: p.write_text(json.dumps({**json.loads(p.read_text()), "game": "vint"})), "describes game 'vint'"),
    (lambda p: p.write_text(json.dumps({**json.loads(p.read_text()), "version": 99})), "has version 99"),
])
def test_bad_manifests_are_refused(tmp_path, damage, message):
    fake_baseline(tmp_path)
    damage(manifest_path("whist", tmp_path))
    with pytest.raises(CheckpointError, match=message):
        load_baseline("whist", tmp_path)


# ----------------------------------------------------------------------------- the recipe
TINY = """
name: tiny
game: whist_v0
seed: 1
total_timesteps: 200
num_envs: 2
num_steps: 52
opponent_mix: {{self: 0.5, rule: 0.5}}
pool_size: 1
network_kwargs: {{hidden_sizes: [16]}}
teacher: rule
teacher_deals: 4
bc_epochs: 1
kl_coef: 0.5
update_epochs: 1
num_minibatches: 1
eval_every: 0
final_eval_deals: 2
eval_opponents: []
checkpoint_every: 1
runs_dir: {runs}
"""


def test_recipe_trains_measures_ships_and_resumes(tmp_path, capsys):
    config = tmp_path / "tiny.yaml"
    config.write_text(TINY.format(runs=tmp_path / "runs"))
    out, run = tmp_path / "out", tmp_path / "runs" / "tiny"
    argv = ["--game", "whist", "--config", str(config), "--boards", "3", "--out", str(out), "--no-progress"]
    assert recipe.main(argv) == 0
    text = capsys.readouterr().out
    assert "measure: vs random:" in text and "measure: vs rule:" in text and "ship:" in text
    assert sorted(p.name for p in out.iterdir()) == ["whist.json", "whist.pt"]      # no temporary files left
    manifest = json.loads((out / "whist.json").read_text())
    assert manifest["command"] == "python -m training.baseline " + " ".join(argv)
    assert manifest["observation"] == layout_signature("whist")
    assert manifest["config"]["teacher_data"]["teacher"] == "rule" and manifest["budget"]["updates"] >= 1
    budget = manifest["budget"]      # the teacher data was made by this run (not taken from the cache)
    assert budget["teacher_cached"] is False and 0 <= budget["teacher_minutes"] <= budget["train_minutes"]
    assert 0 <= budget["cloning_minutes"] <= budget["train_minutes"]
    assert manifest["git"]["commit"] and manifest["machine"]["cores"] >= 1
    for opp in ("random", "rule"):
        r = manifest["results"]["vs"][opp]
        assert r["boards"] == 3 and r["seed"] == recipe.DEFAULT_MEASURE_SEED
        assert r["command"] == (f"vint-eval match --game whist --a baseline --b {opp} --boards 3 "
                                f"--seed {recipe.DEFAULT_MEASURE_SEED} --no-dd")
    # the shipped policy is the run's policy, without the trainer state
    shipped_agent = load_agent(f"baseline:{out}", game="whist")
    run_agent = PPOAgent.load(run / "checkpoints" / "latest.pt", game="whist")
    assert "trainer" not in torch.load(out / "whist.pt", weights_only=True)
    env = games.get("whist").env()
    env.reset(seed=11)
    for _ in range(30):
        obs = env.observe(env.agent_selection)
        a = shipped_agent.act(obs)
        assert a == run_agent.act(obs) and obs["action_mask"][a]
        env.step(a)
    assert "measure:" in (run / "baseline.log").read_text()

    # the same command again: the finished run and both measurements are kept, the pair written again
    assert recipe.main(argv) == 0
    text = capsys.readouterr().out
    assert "resuming" in text and text.count("measured before") == 2
    assert json.loads((out / "whist.json").read_text())["checkpoint"] == manifest["checkpoint"]
    # a stop during the measurement loses only the match in progress
    (run / "measure" / "rule.json").unlink()
    assert recipe.main(argv) == 0
    text = capsys.readouterr().out
    assert text.count("measured before") == 1 and "the trained policy vs rule" in text

    # another config in the same run folder is refused; so is measuring on the training seed
    assert recipe.main([*argv, "--set", "learning_rate=0.1"]) == 2
    assert "holds a run of another config" in capsys.readouterr().err
    assert recipe.main([*argv, "--measure-seed", "1"]) == 2
    assert "is the training seed" in capsys.readouterr().err
    assert recipe.main(["--game", "vint", "--config", str(config)]) == 2
    assert "trains 'whist', not 'vint'" in capsys.readouterr().err
    assert recipe.main([*argv, "--opponents", "rule", "nobody"]) == 2
    assert "--opponents: 'nobody'" in capsys.readouterr().err


def test_every_game_has_a_recipe_config():
    for game in ("vint", "whist", "solo_whist"):
        cfg = recipe.load_config(ROOT / "configs" / f"baseline_{game}.yaml")
        teacher = "residual" if game == "solo_whist" else "rule"     # Solo Whist clones its critic-corrected bot
        assert cfg.run.game == game and cfg.teacher_data.teacher == teacher and cfg.run.max_minutes > 0


def test_results_table_reads_the_manifests_and_marks_stale_ones(tmp_path):
    from vint_env.agents.learned.baseline import results_table
    _, manifest = fake_baseline(tmp_path, standalone=True)
    manifest.update(budget={"max_minutes": 25, "train_minutes": 24.6, "env_steps": 1_230_000},
                    results={"boards": 500, "seed": 1001, "vs": {
                        "random": {"margin_per_board": {"mean": 7.25, "low": 6.5, "high": 8.0},
                                   "verdict": "above (95% CI excludes 0)"},
                        "rule": {"margin_per_board": {"mean": -1.5, "low": -2.25, "high": -0.75},
                                 "verdict": "below (95% CI excludes 0)"}}})
    manifest_path("whist", tmp_path).write_text(json.dumps(manifest))
    table = results_table(tmp_path)
    assert ("| whist | `baseline`: network alone | 25 min of a 25 min budget, 1.23 M steps | +7.25 [+6.50, +8.00] "
            "(above) | -1.50 [-2.25, -0.75] (below) | 500 (1001) |") in table
    assert "| vint | none ships | | | | |" in table and "`residual`" not in table
    # a residual agent beside the baseline has a row of its own; teacher data from the cache is said
    _, residual = fake_baseline(tmp_path, residual=RESIDUAL, standalone=False, suffix="_residual")
    residual.update(budget={"max_minutes": 120, "train_minutes": 11.2, "env_steps": 0, "teacher_cached": True},
                    results=manifest["results"])
    manifest_path("whist", tmp_path, "_residual").write_text(json.dumps(residual))
    assert ("| whist | `residual`: rule bot + critic | 11 min of a 120 min budget, 0.00 M steps (teacher data "
            "from the cache) | +7.25 [+6.50, +8.00] (above) |") in results_table(tmp_path)
    # a run that started from an earlier run's clone: the clone's minutes are said beside its own
    manifest["budget"]["warm_start"] = {"minutes": 19.3, "teacher_minutes": 12.9, "cloning_minutes": 6.4}
    manifest_path("whist", tmp_path).write_text(json.dumps(manifest))
    assert ("| whist | `baseline`: network alone | 25 min of a 25 min budget, 1.23 M steps, after a 19 min warm "
            "start (an earlier run's teacher data and cloning) | +7.25") in results_table(tmp_path)
    manifest["observation"] = {**manifest["observation"], "size": 10}
    manifest_path("whist", tmp_path).write_text(json.dumps(manifest))
    assert "| whist **stale: trained for another observation layout** |" in results_table(tmp_path)


def test_the_recipes_opponents_are_whole_specs_options_and_all(tmp_path):
    """Issue 31 item 6: ``--opponents`` was split on commas, which broke ``pimc:samples=32,time=0.5``."""
    config = tmp_path / "tiny.yaml"
    config.write_text(TINY.format(runs=tmp_path / "runs"))
    args = recipe.build_parser().parse_args(["--game", "whist", "--config", str(config), "--opponents",
                                             "pimc:time=0.5,samples=32", " rule"])
    recipe.resolve(args)
    assert args.opponents == ["pimc:samples=32,time=0.5", "rule"]
    args = recipe.build_parser().parse_args(["--game", "whist", "--config", str(config), "--opponents", "pimc:x=1"])
    with pytest.raises(ValueError, match="unknown option 'x'"):
        recipe.resolve(args)
