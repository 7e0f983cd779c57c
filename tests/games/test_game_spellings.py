"""Every `--game` option takes a game's name and its env name (`whist` and `whist_v0`), read from the
game records; so does a training config's `game`."""

import pytest

from vint_env import games
from vint_env.evaluation.cli import build_parser as eval_parser
from vint_env.play.cli import build_parser as play_parser
from vint_env.training.config import PPOConfig, RunConfig
from training.baseline import build_parser as baseline_parser

PAIRS = [(g.name, g.env_name) for g in games.all_games()]


def test_the_spellings_come_from_the_game_records():
    assert PAIRS == [("vint", "vint_v0"), ("whist", "whist_v0"), ("solo_whist", "solo_whist_v0"),
                     ("vint2p", "vint2p_v0")]


PARSERS = {
    "vint-eval match": lambda game: eval_parser().parse_args(["match", "--game", game, "--a", "rule", "--b", "random"]),
    "vint-eval league": lambda game: eval_parser().parse_args(["league", "--game", game, "--agents", "rule", "random"]),
    "vint-play": lambda game: play_parser().parse_args(["--game", game]),
    "training.baseline": lambda game: baseline_parser().parse_args(["--game", game]),
}


@pytest.mark.parametrize("tool", PARSERS)
@pytest.mark.parametrize("name, env_name", PAIRS)
def test_each_cli_takes_both_spellings_and_gives_the_games_name(tool, name, env_name):
    assert PARSERS[tool](name).game == name
    assert PARSERS[tool](env_name).game == name


@pytest.mark.parametrize("tool", PARSERS)
def test_an_unknown_game_is_a_usage_error_naming_the_games(tool, capsys):
    with pytest.raises(SystemExit) as exc:
        PARSERS[tool]("bridge")
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "unknown game 'bridge'" in err and "vint, whist, solo_whist, vint2p" in err


def test_the_benchmark_and_example_options_give_env_names():
    import argparse
    p = argparse.ArgumentParser()
    games.add_game_option(p, "--games", env_name=True, nargs="+")
    assert p.parse_args(["--games", "whist", "vint_v0"]).games == ["whist_v0", "vint_v0"]


@pytest.mark.parametrize("name, env_name", PAIRS)
def test_a_training_config_takes_both_spellings(name, env_name):
    # the one spelling a config holds is the game's name; its env id is taken as input
    assert PPOConfig(run=RunConfig(game=name)).validate().run.game == name
    assert PPOConfig(run=RunConfig(game=env_name)).validate().run.game == name


def test_vint_eval_plays_a_match_named_by_the_env_name(capsys):
    from vint_env.evaluation.cli import main
    assert main(["--game", "whist_v0", "--a", "rule", "--b", "random", "--boards", "2", "--workers", "1",
                 "--no-progress"]) == 0
    assert "rule (A) vs random (B): whist, deal mode" in capsys.readouterr().out
