"""Property-based fuzzing of the public inputs (issue 23, "Also"): constructor options, reset options, CLI flags.

The contract, for any input: success, or an error of the project's (every project error is a
``ValueError`` subclass: ``DeckError``, ``SeedError``, ``MalformedActionError``, ``ConfigError`` ...;
argparse's usage error exits with status 2), never another exception type (TypeError, KeyError,
IndexError, a numpy error from deep inside), never a hang (each call runs under a time limit), and
no state change from a failed call.  After a successful construction the object must also work:
reset, observe, a few legal steps and render, so an option accepted but broken later is found too.

The options the games declare (``vint_env.games.params``: issue 23 items 6, 7, 8, 14, 15, 16 and the
env-option part of 19) are fuzzed in their own tests below (``*_owned_by_redesign``), now strict.
"""

from __future__ import annotations

import contextlib
import inspect
import signal
import warnings

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from card_game_checks import LOWEST_EAST as DEAL
from vint_env import solo_whist_v0, vint2p_v0, vint_v0, whist_v0  # noqa: E402
from vint_env.vector import VintEngine, WhistEngine  # noqa: E402

ENVS = {"vint_v0": vint_v0, "whist_v0": whist_v0, "solo_whist_v0": solo_whist_v0, "vint2p_v0": vint2p_v0}
LIMIT = 20.0          # seconds: any single call taking longer counts as a hang
FUZZ = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                       HealthCheck.function_scoped_fixture])


class Hang(Exception):
    """A call ran past LIMIT seconds."""


@contextlib.contextmanager
def time_limit(seconds: float = LIMIT):
    def on_alarm(signum, frame):
        raise Hang(f"call ran longer than {seconds} s")
    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


#: The warnings the public API gives on purpose for some of the inputs tried (a reset option it ignores, a
#: render without a render mode or without a display, an illegal action that ends the episode): each is named,
#: any other warning shows.
EXPECTED_WARNINGS = (r".*ignoring unknown reset option", r".*render\(\) called without a render_mode",
                     r"render_mode='human': no window", r".*illegal action .* the episode ends with reward")


def outcome(call):
    """``None`` on success, the project error on a named failure; anything else fails the test."""
    try:
        with time_limit(), warnings.catch_warnings():
            for message in EXPECTED_WARNINGS:
                warnings.filterwarnings("ignore", message=message, category=UserWarning)
            call()
    except Hang:
        raise
    except ValueError as e:           # every project error type derives from ValueError
        assert str(e), f"{type(e).__name__} without a message"
        return e
    return None


# ------------------------------------------------------------------ values a hostile user might pass
WEIRD = st.one_of(
    st.none(), st.booleans(), st.integers(-2**70, 2**70), st.integers(-3, 10),
    st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([0.5, 1.0, 2.0, 4.0, 1e308, -0.0]),
    st.text(max_size=12), st.binary(max_size=6), st.lists(st.integers(-2, 5), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    st.sampled_from([np.int64(1), np.uint64(2**63), np.float32("nan"), np.bool_(True), np.array([1, 2]),
                     np.int8(-1), object()]),
)


def choices_of(name: str) -> list:
    """Valid values of an option, so the fuzz also reaches the code behind a correct one."""
    return {"episode": ["deal", "rubber"], "passout": ["mark", "play"], "honours": ["majority", "net"],
            "game_race": ["first", "deal_end"], "payments": ["symmetric", "literal"],
            "auction": ["alternating", "free"], "render_mode": [None, "ansi", "human"],
            "way": [1, 2, 3, 4, 5], "viewer": [None, 0, 1], "max_deals": [1, 3], "no_trump": [True, False],
            "ten_is_honour": [True, False]}.get(name, [])


def option_values(name: str):
    good = choices_of(name)
    return st.one_of(st.sampled_from(good), WEIRD) if good else WEIRD


def kwargs_for(names):
    return st.fixed_dictionaries({}, optional={n: option_values(n) for n in names})


def exercise(env):
    """What a user does next with an env that was built: every call must keep the contract."""
    env.reset(seed=0)
    for _ in range(12):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            break
        obs = env.observe(agent)
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    env.render()


# ------------------------------------------------------------------ env constructors
#: Options whose validation the `redesign` helper owns (fuzzed below, in the xfail test).
OWNED_OPTIONS = {"reward_scale", "game_bonus"} | {"vint2p_v0.viewer", "vint2p_v0.way"}


def _mine(env_name: str) -> list[str]:
    names = [n for n in inspect.signature(ENVS[env_name].raw_env).parameters]
    return [n for n in names if n not in OWNED_OPTIONS and f"{env_name}.{n}" not in OWNED_OPTIONS]


@pytest.mark.parametrize("env_name", sorted(ENVS))
def test_env_constructor_options(env_name):
    @FUZZ
    @given(kwargs=kwargs_for(_mine(env_name)))
    def check(kwargs):
        holder = {}
        if outcome(lambda: holder.setdefault("env", ENVS[env_name].env(**kwargs))) is None:
            assert outcome(lambda: exercise(holder["env"])) is None, f"{env_name}({kwargs}) built, then failed"
    check()


@pytest.mark.parametrize("env_name", sorted(ENVS))
def test_env_constructor_options_owned_by_redesign(env_name):
    owned = [n for n in inspect.signature(ENVS[env_name].raw_env).parameters if n not in _mine(env_name)]

    @FUZZ
    @given(kwargs=kwargs_for(owned))
    def check(kwargs):
        holder = {}
        if outcome(lambda: holder.setdefault("env", ENVS[env_name].env(**kwargs))) is None:
            assert outcome(lambda: exercise(holder["env"])) is None, f"{env_name}({kwargs}) built, then failed"
            rewards = np.array(list(holder["env"].rewards.values()), dtype=float)
            assert np.isfinite(rewards).all(), f"{env_name}({kwargs}): rewards {rewards}"
    check()


# ------------------------------------------------------------------ reset options and seeds
DEAL_VALUES = st.one_of(st.just(DEAL), st.just(DEAL.replace("987.KQ", "987.KQ5")), st.just(DEAL[:20]),
                        st.just([DEAL, DEAL]), st.just((1, 2, 3, 4)), WEIRD)
SEEDS = st.one_of(st.none(), st.integers(-5, 2**64), WEIRD)


def snapshot(env):
    agent = env.agent_selection
    return agent, env.observe(agent)["observation"].copy(), env.unwrapped._rng.bit_generator.state


@pytest.mark.parametrize("env_name", sorted(ENVS))
def test_reset_options_and_seeds(env_name):
    names = ENVS[env_name].raw_env.RESET_OPTIONS
    options = st.fixed_dictionaries({}, optional={
        **{n: DEAL_VALUES if n in ("deal", "deals") else WEIRD for n in names if n != "dealer"},
        "dealer": st.one_of(st.integers(-2, 5), st.none(), st.booleans(), st.text(max_size=2)),
        "no_such_option": st.integers()})
    env = ENVS[env_name].env()
    env.reset(seed=1)

    @FUZZ
    @given(seed=SEEDS, opts=options)
    def check(seed, opts):
        before = snapshot(env)
        if outcome(lambda: env.reset(seed=seed, options=opts)) is not None:      # failed: nothing changed
            after = snapshot(env)
            assert after[0] == before[0] and after[2] == before[2]
            np.testing.assert_array_equal(after[1], before[1])
        else:
            assert outcome(lambda: exercise(env)) is None
            env.reset(seed=1)
    check()


@pytest.mark.parametrize("env_name", sorted(ENVS))
def test_reset_options_owned_by_redesign(env_name):
    env = ENVS[env_name].env()
    env.reset(seed=1)

    @FUZZ
    @given(dealer=st.one_of(WEIRD, st.just(np.array([1, 2]))), options=st.one_of(st.just("notadict"), WEIRD))
    def check(dealer, options):
        for opts in ({"dealer": dealer}, options):
            before = snapshot(env)
            if outcome(lambda: env.reset(seed=2, options=opts)) is not None:
                assert snapshot(env)[0] == before[0]
            else:
                assert isinstance(opts, dict) or opts is None, f"options={opts!r} accepted"
                env.reset(seed=1)
    check()


def test_step_with_any_action_keeps_the_contract():
    env = vint_v0.env()
    env.reset(seed=4)

    @FUZZ
    @given(action=st.one_of(WEIRD, st.integers(0, 87)))
    def check(action):
        before = snapshot(env)
        if outcome(lambda: env.step(action)) is not None:
            after = snapshot(env)
            assert after[0] == before[0]
            np.testing.assert_array_equal(after[1], before[1])
        env.reset(seed=4)
    check()


# ------------------------------------------------------------------ the batched engines
ENGINE_OPTIONS = {"passout", "honours", "game_race", "no_trump", "ten_is_honour", "backend", "obs_dtype",
                  "parallel"}


@pytest.mark.parametrize("engine", [VintEngine, WhistEngine])
def test_engine_constructor_init_and_reset(engine):
    names = [n for n in inspect.signature(engine).parameters if n in ENGINE_OPTIONS]

    @FUZZ
    @given(kwargs=kwargs_for(names), seed=SEEDS, batch=st.one_of(st.integers(-1, 4), WEIRD),
           deals=st.one_of(st.none(), DEAL_VALUES), dealers=st.one_of(st.none(), st.integers(-1, 4), WEIRD),
           actions=st.one_of(WEIRD, st.integers(0, 87)))
    def check(kwargs, seed, batch, deals, dealers, actions):
        holder = {}
        if outcome(lambda: holder.setdefault("e", engine(**kwargs))) is not None:
            return
        e = holder["e"]
        if outcome(lambda: holder.setdefault("s", e.init(seed=seed, batch_size=batch, deals=deals,
                                                          dealers=dealers))) is not None:
            return
        state = holder["s"]
        before = state.copy()
        if outcome(lambda: e.step(state, actions)) is not None:
            for name, arr in before.__dict__.items():
                np.testing.assert_array_equal(getattr(state, name), arr, err_msg=name)
        outcome(lambda: e.reset(state, deals=deals, dealers=dealers))     # success or a named error
        e.step(state, e.random_actions(state, np.random.default_rng(0)).clip(0))    # and the state still steps
    check()


def test_engine_options_owned_by_redesign():
    warm = VintEngine()        # compile the subset-reset kernel outside the time limit: compiling is not a hang
    warm.reset(warm.init(seed=0, batch_size=3), games=[0])

    @FUZZ
    @given(auto_reset=WEIRD, reward_scale=st.one_of(st.just(1e308), WEIRD), games=st.one_of(st.just([1.7]), WEIRD))
    def check(auto_reset, reward_scale, games):
        holder = {}
        if outcome(lambda: holder.setdefault("e", VintEngine(auto_reset=auto_reset))) is None:
            assert isinstance(auto_reset, (bool, np.bool_)), f"auto_reset={auto_reset!r} accepted"  # NumPy booleans are booleans (params.py)
        if outcome(lambda: holder.setdefault("f", VintEngine(reward_scale=reward_scale))) is None:
            # the scale the engine keeps (a float: a NumPy integer such as uint64(2**63) would wrap round if
            # multiplied in its own type) leaves every reward finite
            assert holder["f"].reward_scale * 20000 < float("inf")
        e = VintEngine()
        state = e.init(seed=0, batch_size=3)
        if outcome(lambda: e.reset(state, games=games)) is None:
            g = np.asarray(games)      # None: every game (the default); an empty list: none
            assert games is None or g.size == 0 or g.dtype.kind in "biu", f"games={games!r} accepted"
    check()


# ------------------------------------------------------------------ command lines
def _eval_argv(draw, tmp):
    sub = draw(st.sampled_from(["match", "league", "view", "deals"]))
    agent = st.sampled_from(["random", "rule", "py:json:nope", "py:json:dumps", "network:/nonexistent.pt", "alphazero",
                             "", "pimc:nonsense=1", "baseline:/nowhere", "py:", "network:"])
    value = st.one_of(st.sampled_from(["1", "2", "0", "-1", "abc", "1e9", "", "vint", "whist"]), st.text(max_size=6))
    path = st.sampled_from([str(tmp / "a.json"), str(tmp / "a.pbn"), str(tmp), str(tmp / "no" / "x.json"),
                            "/dev/null", str(tmp / "bin.pbn"), str(tmp / "bad.json")])
    argv = [sub]
    if sub == "match":
        argv += ["--a", draw(agent), "--b", draw(agent)]
    elif sub == "league":
        argv += ["--agents", draw(agent), draw(agent), "--out-dir", draw(path)]
    elif sub == "view":
        argv += [draw(path)]
    if sub in ("match", "league"):
        argv += ["--boards", draw(st.sampled_from(["1", "2", "0", "-3", "x"])), "--workers", "1", "--no-progress"]
        if sub == "match":
            argv += ["--no-dd"]
    if sub == "deals":
        argv += ["--boards", draw(st.sampled_from(["1", "2", "0", "x"])), "--out", draw(path)]
    for _ in range(draw(st.integers(0, 3))):
        flag = draw(st.sampled_from(["--game", "--seed", "--deal-seed", "--deals", "--env-option", "--episode",
                                     "--out", "--html", "--bogus"]))
        if flag in ("--deals", "--out", "--html"):
            argv += [flag, draw(path)]
        elif flag == "--env-option":
            argv += [flag, draw(st.sampled_from(["way=1", "episode=rubber", "viewer=9", "x", "=", "reward_scale=abc",
                                                 "passout=play", "way=9"]))]
        else:
            argv += [flag, draw(value)]
    return argv


@pytest.fixture
def cli_files(tmp_path):
    (tmp_path / "bin.pbn").write_bytes(b"\x00\xff\xfe garbage")
    (tmp_path / "bad.json").write_text('{"summary": {"game": 1}, "boards": [{"tables": [{"replay": 3}]}]}')
    (tmp_path / "a.pbn").write_text('[Board "1"]\n[Dealer "N"]\n[Deal "' + DEAL + '"]\n')
    return tmp_path


def test_vint_eval_command_lines(cli_files, capsys):
    from vint_env.evaluation.cli import main

    @FUZZ
    @given(data=st.data())
    def check(data):
        argv = _eval_argv(data.draw, cli_files)
        try:
            with time_limit(60):
                code = main(argv)
        except SystemExit as e:         # argparse: a usage error
            code = e.code
        err = capsys.readouterr().err
        assert code in (0, 2), (argv, code, err[-500:])
        assert "Traceback" not in err, (argv, err[-2000:])
    check()


def test_vint_train_command_lines(tmp_path, capsys, monkeypatch):
    pytest.importorskip("torch")
    from vint_env.training import cli, trainer

    class WouldTrain(Exception):
        pass

    def refuse_to_train(self, *a, **k):      # a valid command line would train: that is success here
        raise WouldTrain
    monkeypatch.setattr(trainer.Trainer, "train", refuse_to_train)
    (tmp_path / "bomb.yaml").write_text("a: &a [1, 1]\nb: [*a, *a]\n")
    (tmp_path / "list.yaml").write_text("- 1\n- 2\n")
    keys = ["num_envs", "seed", "network", "game", "env_kwargs.reward_scale", "teacher", "eval_opponents",
            "opponent_mix.self", "total_timesteps", "nonsense", "network_kwargs", "env_source"]
    values = ["1", "-1", "abc", "[1, 2]", "{a: 1}", "this:d", "py:this:d", "1e308", ".nan", "", "null", "true"]

    @FUZZ
    @given(config=st.sampled_from(["configs/smoke.yaml", str(tmp_path / "bomb.yaml"), str(tmp_path / "list.yaml"),
                                   str(tmp_path / "none.yaml"), None]),
           sets=st.lists(st.tuples(st.sampled_from(keys), st.sampled_from(values)), max_size=3),
           resume=st.sampled_from([None, str(tmp_path / "nothing"), str(tmp_path)]))
    def check(config, sets, resume):
        argv = ["--no-progress", "--run-dir", str(tmp_path / "run")]
        if config:
            argv += ["--config", config]
        if resume:
            argv += ["--resume", resume]
        for k, v in sets:
            argv += ["--set", f"{k}={v}"]
        try:
            with time_limit(60):
                code = cli.main(argv)
        except WouldTrain:
            code = 0
        except SystemExit as e:
            code = e.code
        err = capsys.readouterr().err
        assert code in (0, 2), (argv, code, err[-800:])
        assert "Traceback" not in err
    check()


# ------------------------------------------------------------------ the Gymnasium single-agent wrapper
def test_single_agent_wrapper_options():
    from vint_env.wrappers.single_agent import SingleAgentEnv

    @FUZZ
    @given(game=st.one_of(st.sampled_from(["vint_v0", "whist", "solo_whist_v0", "vint2p"]), WEIRD),
           seats=st.one_of(st.sampled_from([0, 1, [0, 2], (1, 3)]), WEIRD),
           opponents=st.one_of(st.sampled_from(["random", "rule", "py:json:nope"]), WEIRD),
           illegal_action=st.one_of(st.sampled_from(["terminate", "raise", "random"]), WEIRD),
           illegal_reward=WEIRD, seed=SEEDS)
    def check(game, seats, opponents, illegal_action, illegal_reward, seed):
        holder = {}
        built = outcome(lambda: holder.setdefault("env", SingleAgentEnv(
            game, seats, opponents, illegal_action=illegal_action, illegal_reward=illegal_reward)))
        if built is None:
            env = holder["env"]
            if outcome(lambda: env.reset(seed=seed)) is None:
                obs, _ = env.reset(seed=0)
                assert outcome(lambda: env.step(int(np.flatnonzero(obs["action_mask"])[0]))) is None
    check()
