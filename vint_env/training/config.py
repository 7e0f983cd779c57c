"""Every hyper-parameter of a PPO run, in sections by job, each key declared with its type and range.

``load_config("configs/vint_ppo.yaml", ["ppo.learning_rate=1e-4"])`` reads the YAML file (and the
files it inherits from, ``base: other.yaml``: :mod:`vint_env.training.config_files`), applies
``--set key=value`` overrides and checks every key: an unknown key is an error naming the nearest
known key, a key in the wrong section names the section it belongs to, and a value of the wrong
type or out of its declared range names the key and the range.

The config is a small dataclass of sections (:class:`PPOConfig`: ``cfg.run.seed``,
``cfg.ppo.learning_rate``), one dataclass per job of the trainer::

    run: {name: quick, game: vint, seed: 1}
    ppo: {learning_rate: 0.0001, clip_coef: 0.1}

Every key has one name in the whole config, so a key may also be given alone, without its section
(``--set learning_rate=...``, ``learning_rate: 0.0001`` at the top of a file): :func:`nest` puts it
in its section.  That one conversion is also how the flat configs of earlier releases are read: the
files, and the ``config`` that checkpoints written before the sections store (:func:`config_from_checkpoint`).
"""

from __future__ import annotations

import copy
import dataclasses
import difflib
import math
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vint_env import games as _games
from vint_env.agents.spec import AgentSpecError, parse_spec

from .config_files import ConfigError, read_config_file, safe_yaml  # noqa: F401  (ConfigError: this module exports it)

#: The games a run may train on, by name (from :mod:`vint_env.games`); their env names (``vint_v0`` ...) are
#: accepted as input too and read as the name.
GAMES = _games.names()
ENV_SOURCES = ("aec", "vector")
DEVICES = ("auto", "cpu", "cuda", "mps")           # torch devices a run learns on (device.py)
OPPONENT_KINDS = ("self", "pool", "random", "rule")
SHAPING_TRANSFORMS = ("none", "symlog")
RESIDUAL_ACTIONS = ("cards", "auction", "all")     # vint_env.agents.learned.residual.ACTIONS (checked below)

#: Keys that may change when resuming a run (``vint-train --resume DIR --set key=value``): they do not
#: change what was learnt up to the checkpoint.  A new ``total_timesteps`` changes the learning-rate
#: schedule from the checkpoint on (so the run then differs from an uninterrupted one), and a new
#: ``torch_threads`` or ``device`` may change float rounding.
RESUME_OVERRIDABLE = ("total_timesteps", "max_minutes", "eval_every", "eval_deals", "final_eval_deals",
                      "eval_opponents", "checkpoint_every", "keep_checkpoints", "torch_threads", "ray_address",
                      "device")

#: Bounds of a network's size: widths of a hidden layer, layers, and weights in all (an estimate from the
#: widths, the game's observation and action sizes), so that a typo cannot ask for terabytes.
MAX_WIDTH = 65536
MAX_LAYERS = 16
MAX_WEIGHTS = 50_000_000
#: Env steps a rollout may hold (``num_envs * num_steps``) before the deals in progress are finished.
MAX_ROLLOUT_STEPS = 1 << 20


@dataclass(frozen=True)
class Range:
    """The values a key admits: numbers within ``lo``..``hi`` (``gt``/``lt``: open ends), or one of ``choices``."""

    lo: float | None = None
    hi: float | None = None
    lo_open: bool = False
    hi_open: bool = False
    choices: tuple | None = None

    def admits(self, value) -> bool:
        if self.choices is not None:
            return value in self.choices
        if isinstance(value, float) and not math.isfinite(value):
            return False
        return ((self.lo is None or (value > self.lo if self.lo_open else value >= self.lo))
                and (self.hi is None or (value < self.hi if self.hi_open else value <= self.hi)))

    def __str__(self) -> str:
        if self.choices is not None:
            return "one of " + ", ".join(repr(c) for c in self.choices)
        lo = "-inf" if self.lo is None else _number(self.lo)
        hi = "inf" if self.hi is None else _number(self.hi)
        return f"in {'(' if self.lo_open or self.lo is None else '['}{lo}, {hi}{')' if self.hi_open or self.hi is None else ']'}"


def _number(x) -> str:
    return str(x) if isinstance(x, int) else f"{x:g}"


def key(default, *, ge=None, gt=None, le=None, lt=None, choices=None):
    """A config key: its default and its range (its type is the field's annotation).

    ``ge``/``gt``: the least value (included / excluded), ``le``/``lt``: the largest; ``choices``: the
    admitted values.  Floats must also be finite.  :func:`check_key` checks both, for every key.
    """
    bounds = Range(ge if gt is None else gt, le if lt is None else lt, gt is not None, lt is not None,
                   tuple(choices) if choices is not None else None)
    if isinstance(default, (dict, list)):
        return field(default_factory=lambda: copy.deepcopy(default), metadata={"range": bounds})
    return field(default=default, metadata={"range": bounds})


BIG = 10 ** 9          # counts with no natural bound (updates, deals): bounded only against typos
COEF = 1e6             # coefficients and weights of a loss


@dataclass
class RunConfig:
    """What is trained, with which seed and budget, and where it is written."""
    name: str = key("vint_ppo")           # run name: folder <runs_dir>/<name> and log titles
    game: str = key("vint")               # vint | whist | solo_whist | vint2p (the env ids vint_v0 ... read as these)
    env_kwargs: dict = key({})            # options of the env, e.g. {reward_scale: 0.001}
    seed: int = key(1, ge=0, le=2 ** 32 - 1)    # everything random in the run derives from it
    total_timesteps: int = key(1_000_000, ge=0, le=10 ** 12)  # env steps to train for; 0 with a teacher: clone, stop
    max_minutes: float = key(0.0, ge=0, le=10 ** 7)   # stop (with a checkpoint) after this wall time; 0 = no limit
    torch_threads: int = key(1, ge=1, le=256)   # torch.set_num_threads; 1 leaves the other core to the envs
    device: str = key("auto", choices=DEVICES)  # the learner's torch device; auto: cuda, else mps, else cpu
    runs_dir: str = key("runs")           # the run writes to <runs_dir>/<name>


@dataclass
class CollectionConfig:
    """How rollouts are played (sources.py, selfplay.py, collectors.py, duplicate.py)."""
    env_source: str = key("vector", choices=ENV_SOURCES)  # vector: the batched engine; aec: PettingZoo AEC envs
    num_envs: int = key(32, ge=1, le=65536)     # games played side by side (one batched forward pass per step)
    num_steps: int = key(128, ge=1, le=65536)   # env steps per game per rollout; the deal in progress is then finished
    collectors: int = key(0, ge=0, le=256)      # 0: collect in the learner; N: N collector processes (or Ray actors)
    ray_address: str = key("")            # with collectors >= 1: run them as Ray actors on this cluster
    duplicate: bool = key(False)          # every deal at two tables; each seat's return minus the other table's


@dataclass
class OpponentsConfig:
    """Who the learner plays in its rollouts (seating.py, pool.py): the share of each kind of opponent."""
    opponent_mix: dict = key({"self": 0.5, "pool": 0.3, "random": 0.1, "rule": 0.1})   # sums to 1
    pool_size: int = key(8, ge=1, le=10_000)         # past policies kept in the pool (oldest dropped)
    pool_add_every: int = key(10, ge=1, le=BIG)      # updates between snapshots into the pool


@dataclass
class ModelConfig:
    """The network (vint_env/agents/learned/networks.py) and the centralised critic (critic.py)."""
    network: str = key("sparse")          # a registered network, never an import path
    network_kwargs: dict = key({"hidden_sizes": [256, 256]})
    central_critic: bool = key(False)     # value head + a correction from env.state() (every hand); the actor never sees it
    critic_hidden_sizes: list = key([256, 256])   # hidden widths (tanh) of the centralised critic


@dataclass
class ShapingConfig:
    """Training-only reward shaping (shaping.py; evaluation is always in real points)."""
    shaping_trick_reward: float = key(0.0, ge=0, le=COEF)   # +this to the side that wins a trick, -this to the other
    shaping_exclude_items: list = key([])                  # score items left out, e.g. [honours, coronets]
    shaping_deal_transform: str = key("none", choices=SHAPING_TRANSFORMS)  # symlog: c*sign(r)*ln(1+|r|/c)
    shaping_deal_scale: float = key(1.0, gt=0, le=COEF)     # c of symlog, in env reward units


@dataclass
class PPOParams:
    """The PPO update (ppo.py)."""
    learning_rate: float = key(3e-4, gt=0, le=10)
    anneal_lr: bool = key(True)                       # linear decay to 0 over the budget (see max_minutes)
    gamma: float = key(1.0, ge=0, le=1)               # discount per decision of the same seat
    gae_lambda: float = key(0.95, ge=0, le=1)
    num_minibatches: int = key(4, ge=1, le=65536)
    update_epochs: int = key(4, ge=1, le=10_000)
    norm_adv: bool = key(True)                        # normalise advantages per minibatch
    clip_coef: float = key(0.2, gt=0, le=COEF)
    clip_coef_final: float | None = key(None, gt=0, le=COEF)   # anneal clip_coef to this; None = constant
    clip_vloss: bool = key(True)                      # clipped value loss (as in CleanRL)
    ent_coef: float = key(0.01, ge=0, le=COEF)
    ent_coef_final: float | None = key(None, ge=0, le=COEF)    # anneal ent_coef to this; None = constant
    vf_coef: float = key(0.5, ge=0, le=COEF)
    max_grad_norm: float = key(0.5, gt=0, le=COEF)
    target_kl: float = key(0.0, ge=0, le=COEF)        # stop the epochs of an update early above this KL; 0 = never
    fused_adam: bool = key(False)                     # torch's fused Adam (floats differ in the last bits)


@dataclass
class TeacherDataConfig:
    """The teacher's games for the imitation warm start (teacher_data.py); off while teacher is ""."""
    teacher: str = key("")                            # agent spec: rule, pimc, network:PATH, py:MODULE:NAME ...
    teacher_deals: int = key(1000, ge=1, le=10 ** 8)  # deals of teacher data (cached in <runs_dir>/teacher_cache)
    teacher_workers: int = key(1, ge=1, le=256)       # processes that play the teacher's deals
    teacher_cache: bool = key(True)                   # keep the teacher data on disk
    teacher_engine: bool = key(False)                 # play them on the batched engine (engine_teacher.py)


@dataclass
class CloningConfig:
    """Behaviour cloning of the teacher's decisions (imitation.py)."""
    bc_epochs: int = key(4, ge=0, le=10_000)          # cloning passes over the teacher data
    bc_batch_size: int = key(512, ge=1, le=1 << 20)  # minibatch size of cloning
    bc_learning_rate: float = key(0.001, gt=0, le=10)  # Adam step size of cloning
    bc_value_coef: float = key(0.5, ge=0, le=COEF)    # also fit the value head to the teacher's seats' returns
    bc_holdout: float = key(0.1, ge=0, lt=1)          # share of the teacher's deals held out to measure the clone


@dataclass
class ValueTargetsConfig:
    """Cloning toward the teacher's action values instead of its choices (value_targets.py)."""
    teacher_values: str = key("")                     # "" | dd | rollout | rollout_auction
    bc_value_scale: float = key(1.0, gt=0, le=COEF)   # logits per point of a card's value
    bc_value_unit: float = key(0.0, ge=0, le=BIG)     # > 0 compresses value differences beyond this many points
    bc_teacher_bonus: float = key(0.0, ge=0, le=BIG)  # points added to the teacher's card


@dataclass
class ResidualConfig:
    """A rule bot overridden by the network (vint_env/agents/learned/residual.py); off while residual_base is ""."""
    residual_base: str = key("")                      # "rule" or ""
    residual_margin: float = key(0.0, ge=0, le=COEF)  # override where the network values another action more
    residual_actions: str = key("cards", choices=RESIDUAL_ACTIONS)  # cards | auction (and Solo Whist's trump) | all


@dataclass
class InitConfig:
    """The network a run starts from (a checkpoint instead of cloning) and the KL pull toward its start."""
    init_from: str = key("")                          # a checkpoint (PATH.pt) of the same game
    kl_coef: float = key(0.0, ge=0, le=COEF)          # weight of KL(start || policy) in the PPO loss; 0 = none
    kl_decay: float = key(1.0, gt=0, le=1)            # the KL weight falls linearly to 0 at this share of the budget


@dataclass
class EvaluationConfig:
    """Evaluations during and at the end of the run (eval_schedule.py, evaluation.py)."""
    eval_every: int = key(20, ge=0, le=BIG)           # updates between evaluations; 0 = only at the end
    eval_deals: int = key(200, ge=0, le=10 ** 7)      # duplicate deals per opponent at each evaluation
    final_eval_deals: int = key(500, ge=0, le=10 ** 7)  # duplicate deals per opponent in the final evaluation
    eval_opponents: list = key(["random", "rule"])


@dataclass
class CheckpointsConfig:
    """Checkpoints (checkpoints.py)."""
    checkpoint_every: int = key(10, ge=1, le=BIG)     # updates between checkpoints (also one at the end)
    keep_checkpoints: int = key(3, ge=0, le=BIG)      # numbered checkpoints kept besides latest.pt; 0 = keep all


@dataclass
class PPOConfig:
    """A PPO self-play run: one section per job of the trainer.  YAML sections and keys are the field names."""

    run: RunConfig = field(default_factory=RunConfig)
    collection: CollectionConfig = field(default_factory=CollectionConfig)
    opponents: OpponentsConfig = field(default_factory=OpponentsConfig)
    model: ModelConfig = field(default_factory=ModelConfig)
    shaping: ShapingConfig = field(default_factory=ShapingConfig)
    ppo: PPOParams = field(default_factory=PPOParams)
    teacher_data: TeacherDataConfig = field(default_factory=TeacherDataConfig)
    cloning: CloningConfig = field(default_factory=CloningConfig)
    value_targets: ValueTargetsConfig = field(default_factory=ValueTargetsConfig)
    residual: ResidualConfig = field(default_factory=ResidualConfig)
    init: InitConfig = field(default_factory=InitConfig)
    evaluation: EvaluationConfig = field(default_factory=EvaluationConfig)
    checkpoints: CheckpointsConfig = field(default_factory=CheckpointsConfig)

    def validate(self) -> PPOConfig:
        """Check every key's type and range, then the keys against each other; return self."""
        for section, keys in SECTIONS.items():
            part = getattr(self, section)
            for name in keys:
                setattr(part, name, check_key(section, name, getattr(part, name)))
        _check_relations(self)
        return self

    @property
    def rollout_steps(self) -> int:
        """Least env steps per update (``num_envs * num_steps``; finishing the deals adds more)."""
        return self.collection.num_envs * self.collection.num_steps

    def to_dict(self) -> dict:
        """Sectioned: section -> key -> value (what a run's config.yaml and its checkpoints store)."""
        return dataclasses.asdict(self)

    def to_flat(self) -> dict:
        """Flat: key -> value (every key has one name; what runs compare, e.g. on resume)."""
        return {k: v for part in self.to_dict().values() for k, v in part.items()}


#: The sections of a config, each the keys of one job of the trainer, read from the dataclasses.
SECTION_TYPES: dict[str, type] = {f.name: f.default_factory for f in dataclasses.fields(PPOConfig)}
SECTIONS: dict[str, tuple[str, ...]] = {s: tuple(f.name for f in dataclasses.fields(t))
                                        for s, t in SECTION_TYPES.items()}
SECTION_OF = {k: section for section, keys in SECTIONS.items() for k in keys}
assert len(SECTION_OF) == sum(map(len, SECTIONS.values())), "a key name is used in two sections"
assert not set(SECTION_OF) & set(SECTIONS), "a key is named as a section"
FIELDS = {f.name: f for t in SECTION_TYPES.values() for f in dataclasses.fields(t)}
_HINTS = {k: h for t in SECTION_TYPES.values() for k, h in typing.get_type_hints(t).items()}
QUALIFIED = [f"{SECTION_OF[k]}.{k}" for k in FIELDS]
#: Sections of earlier releases that are split now: a key given in one is named with its new section.
FORMER_SECTIONS = {"warm_start": ("teacher_data", "cloning", "value_targets", "residual", "init")}
assert max(len(t.__dataclass_fields__) for t in SECTION_TYPES.values()) < 30


def check_key(section: str, name: str, value: Any) -> Any:
    """``value`` of key ``section.name`` converted to its declared type (an int for a float key) and
    checked against its declared range, or a :class:`ConfigError` naming the key."""
    hint = _HINTS[name]
    origin = typing.get_origin(hint) or hint
    if origin is types.UnionType or origin is typing.Union:
        if value is None and type(None) in typing.get_args(hint):
            return None
        origin = next(a for a in typing.get_args(hint) if a is not type(None))
    if origin is bool:
        ok = isinstance(value, bool)
    elif origin is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif origin is float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        if ok:
            try:
                value = float(value)
            except OverflowError:             # an int too large for a float is out of any range
                value = math.inf
    else:
        ok = isinstance(value, origin)
    if not ok:
        raise ConfigError(f"config key {name!r} must be of type {origin.__name__}, got {_short(value)} "
                          f"({type(value).__name__}), in section {section}")
    bounds: Range = FIELDS[name].metadata["range"]
    if (bounds.choices is not None or origin in (int, float)) and not bounds.admits(value):
        raise ConfigError(f"{section}.{name} must be {bounds}, got {_short(value)}")
    return value


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:60] + f"... ({len(text)} characters)"


def _check_sizes(key_name: str, sizes, obs_size: int, num_actions: int) -> int:
    """The weights a stack of layers of widths ``sizes`` has; a ConfigError unless each width is in
    1..MAX_WIDTH and there are 1..MAX_LAYERS of them."""
    if (not isinstance(sizes, (list, tuple)) or not 1 <= len(sizes) <= MAX_LAYERS
            or not all(isinstance(h, int) and not isinstance(h, bool) and 1 <= h <= MAX_WIDTH for h in sizes)):
        raise ConfigError(f"{key_name} must be a list of 1 to {MAX_LAYERS} layer widths, each an int in "
                          f"[1, {MAX_WIDTH}], got {_short(sizes)}")
    widths = [obs_size, *sizes, num_actions]
    return sum(a * b for a, b in zip(widths, widths[1:]))


def _check_relations(cfg: PPOConfig) -> None:
    """The checks that relate keys to each other, to the game, to agent specs and to files."""
    run, col, opp, mod, shp, ppo = cfg.run, cfg.collection, cfg.opponents, cfg.model, cfg.shaping, cfg.ppo
    td, cl, vt, res, ini, ev = cfg.teacher_data, cfg.cloning, cfg.value_targets, cfg.residual, cfg.init, cfg.evaluation

    def need(cond: bool, msg: str):
        if not cond:
            raise ConfigError(msg)
    known = isinstance(run.game, str) and (run.game in GAMES or run.game in _games.env_names())
    need(known, f"game must be one of {GAMES} (or their env names {_games.env_names()}), got {_short(run.game)}")
    record = _games.get(run.game)          # one spelling, the game's name: "whist_v0" is whist, as in every CLI
    run.game = record.name
    from vint_env.evaluation.bench_sets import frozen_set_of
    frozen = frozen_set_of(run.seed)
    need(frozen is None, f"seed {run.seed} draws the benchmark's frozen boards ({frozen}: the trainer's "
                         f"evaluation boards come from the run's seed); training must never use them: "
                         f"choose another seed")
    declared = {p.name: p for p in record.parameters}   # the game's declared options
    for name, value in run.env_kwargs.items():
        try:
            declared[name].check(value) if name in declared else None
        except ValueError as e:
            need(False, f"env_kwargs.{e}")
    need(run.total_timesteps >= 1 or (td.teacher and cl.bc_epochs > 0),
         f"total_timesteps must be >= 1 (0 only for a run that clones a teacher and stops: "
         f"teacher and bc_epochs >= 1), got {run.total_timesteps!r}")
    need(cfg.rollout_steps <= MAX_ROLLOUT_STEPS,
         f"a rollout of num_envs * num_steps = {col.num_envs} * {col.num_steps} = {cfg.rollout_steps} env steps "
         f"is more than {MAX_ROLLOUT_STEPS} (collection)")
    need(not col.ray_address or col.collectors >= 1,
         f"ray_address={col.ray_address!r} runs the collectors on Ray: it needs collectors >= 1")
    if col.duplicate:
        from .duplicate import check_game, check_pairs
        try:
            check_game(record)
            check_pairs(col.num_envs)
        except ValueError as e:
            need(False, f"duplicate: {e}")
    obs_size, num_actions = record.layout.size, record.num_actions
    weights = 0
    for name in ("hidden_sizes", "value_hidden_sizes"):
        if name in mod.network_kwargs:
            weights += _check_sizes(f"model.network_kwargs.{name}", mod.network_kwargs[name], obs_size, num_actions)
    if mod.central_critic:
        weights += _check_sizes("model.critic_hidden_sizes", mod.critic_hidden_sizes, 2 * obs_size, 1)
    need(weights <= MAX_WEIGHTS, f"the network would have about {weights:,} weights, more than {MAX_WEIGHTS:,} "
                                 f"(model.network_kwargs, model.critic_hidden_sizes)")
    from vint_env.agents.learned.residual import ACTIONS, BASES
    assert tuple(ACTIONS) == RESIDUAL_ACTIONS
    need(res.residual_base in ("", *BASES), f"residual_base must be '' or one of {BASES}, got {res.residual_base!r}")
    if vt.teacher_values:
        from .value_targets import check_values
        need(bool(td.teacher), f"teacher_values={vt.teacher_values!r} labels a teacher's deals: it needs a teacher")
        try:
            check_values(vt.teacher_values, record, run.env_kwargs)
        except ValueError as e:
            need(False, str(e))
    if td.teacher_engine:
        from .engine_teacher import ENGINE_TEACHERS, ENGINE_VALUES
        try:
            kind = parse_spec(td.teacher).kind if td.teacher else ""
        except AgentSpecError as e:
            raise ConfigError(f"teacher: {e}") from None
        need(record.engine_rule_bot is not None,
             f"teacher_engine plays the teacher with the rule bot compiled for the batched engine; {record.name} "
             f"has none (games with one: {', '.join(g.name for g in _games.all_games() if g.engine_rule_bot)})")
        need(vt.teacher_values in ENGINE_VALUES,
             f"teacher_engine makes teacher_values {ENGINE_VALUES}, not {vt.teacher_values!r}")
        need(kind in ENGINE_TEACHERS,
             f"teacher_engine plays the teacher kinds {ENGINE_TEACHERS} (the rule bot, a residual agent over it), "
             f"not teacher={td.teacher!r}")
        from .vector_source import engine_options
        extra = set(run.env_kwargs) - set(engine_options(record.engine_class()))
        need(not extra, f"teacher_engine: the batched engine does not take env_kwargs {sorted(extra)}")
        need(run.env_kwargs.get("episode", "deal") == "deal",
             f"teacher_engine plays deal episodes only, not episode={run.env_kwargs.get('episode')!r}")
    need(ini.kl_coef == 0 or (td.teacher and cl.bc_epochs > 0) or ini.init_from,
         f"kl_coef={ini.kl_coef:g} pulls toward the cloned teacher: it needs a teacher and bc_epochs >= 1 "
         f"(or init_from: the checkpoint it starts from)")
    need(not (ini.init_from and td.teacher),
         f"init_from={ini.init_from!r} starts from a trained network: it takes no teacher to clone "
         f"(teacher={td.teacher!r})")
    if ini.init_from:
        need(Path(ini.init_from).is_file(), f"init_from: no checkpoint file {ini.init_from!r}")
        _check_init_from(ini.init_from, record, (mod.network, mod.network_kwargs))
    need(all(isinstance(i, str) for i in shp.shaping_exclude_items),
         f"shaping_exclude_items must be score item names, got {_short(shp.shaping_exclude_items)}")
    unknown = set(opp.opponent_mix) - set(OPPONENT_KINDS)
    need(not unknown, f"opponent_mix has unknown kind(s) {sorted(map(str, unknown))}; known: {OPPONENT_KINDS}")
    for kind, p in opp.opponent_mix.items():
        need(isinstance(p, (int, float)) and not isinstance(p, bool) and math.isfinite(p) and p >= 0,
             f"opponent_mix.{kind} must be a finite number >= 0, got {_short(p)}")
    total = sum(opp.opponent_mix.values())
    need(abs(total - 1.0) < 1e-6, f"opponent_mix must sum to 1, sums to {total:g}: {opp.opponent_mix}")
    bad = [o for o in ev.eval_opponents if not isinstance(o, str)]
    need(not bad, f"eval_opponents must be agent specs (strings), got {_short(bad)}")
    for name, text in agent_spec_texts(cfg):
        try:
            parse_spec(text)
        except AgentSpecError as e:
            raise ConfigError(f"{name}: {e}") from None


def _check_init_from(path: str, game: _games.Game, network: tuple[str, dict]) -> None:
    """``init_from`` must be a checkpoint of the run's game and network (read before any run folder is made)."""
    from vint_env.agents.learned.policy import CheckpointError, load_checkpoint
    try:
        ckpt = load_checkpoint(path, game=game)
    except CheckpointError as e:
        raise ConfigError(f"init_from: {e}") from None
    theirs = (ckpt["network"].get("name"), ckpt["network"].get("kwargs"))
    if theirs != network:
        raise ConfigError(f"init_from={path!r} holds network {theirs[0]!r} with {theirs[1]!r}; this run trains "
                          f"{network[0]!r} with {network[1]!r}: set network and network_kwargs to the checkpoint's")


def agent_spec_texts(cfg: PPOConfig) -> list[tuple[str, str]]:
    """``(key, spec text)`` of every agent spec ``cfg`` names: its teacher and its evaluation opponents."""
    teacher = cfg.teacher_data.teacher
    return ([("teacher", teacher)] if teacher else []) + [("eval_opponents", o) for o in cfg.evaluation.eval_opponents]


def code_specs(cfg: PPOConfig) -> dict[str, str]:
    """The keys of ``cfg`` whose agent specs import or run code (kinds that declare ``runs_code``, as
    ``py:MODULE:NAME``), by key name, decided on the parsed specs (``" py:this:x"`` is one too).

    ``vint-train --resume`` reads its config from the checkpoint; those keys
    are used only when the user's own ``--config`` or ``--set`` names them too.
    """
    found: dict[str, list[str]] = {}
    for name, text in agent_spec_texts(cfg):
        spec = parse_spec(text)
        if spec.declaration.runs_code:
            found.setdefault(name, []).append(str(spec))
    return {name: ", ".join(specs) for name, specs in found.items()}


def _unknown_key(name: str, section: str | None = None) -> ConfigError:
    """The error for an unknown key (``section``: the section it was given in), naming the nearest key."""
    qualified = f"{section}.{name}" if section else name
    if section is None and name in SECTIONS:
        return ConfigError(f"config section {name!r} must be a mapping of its keys: {', '.join(SECTIONS[name])}")
    if section is None and name in FORMER_SECTIONS:
        return ConfigError(f"config section {name!r} of earlier releases is split into "
                           f"{', '.join(FORMER_SECTIONS[name])}: give each of its keys in its section, or alone")
    if section is not None and name in SECTION_OF:
        return ConfigError(f"config key {name!r} is not in section {section!r}: it is {SECTION_OF[name]}.{name}")
    close = difflib.get_close_matches(qualified, QUALIFIED if section else list(FIELDS) + list(SECTIONS), n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    listing = (f"keys of {section}: {', '.join(SECTIONS[section])}" if section in SECTIONS
               else f"sections: {', '.join(SECTIONS)}; keys: {', '.join(FIELDS)}")
    return ConfigError(f"unknown config key {_short(qualified)}{hint}; {listing}")


def nest(data: dict) -> dict[str, dict]:
    """A config mapping, sectioned or flat (or a mix), as sections: section -> key -> value.

    The one conversion from the flat configs of earlier releases (files, and the ``config`` their
    checkpoints store) to sections: a key given alone goes to its section.  An unknown key, a key in the
    wrong section and a key given twice (alone and in its section) are errors naming the section.
    """
    if not isinstance(data, dict):
        raise ConfigError(f"expected a mapping of config keys, got {type(data).__name__}")
    out: dict[str, dict] = {}

    def put(name, value):
        section = out.setdefault(SECTION_OF[name], {})
        if name in section:
            raise ConfigError(f"config key {name!r} is given twice (alone and as {SECTION_OF[name]}.{name})")
        section[name] = value
    for name, value in data.items():
        name = str(name)
        if name in SECTIONS:
            if not isinstance(value, dict):
                raise _unknown_key(name)
            for sub, v in value.items():
                if str(sub) not in SECTIONS[name]:
                    raise _unknown_key(str(sub), name)
                put(str(sub), v)
        elif name in FIELDS:
            put(name, value)
        else:
            raise _unknown_key(name)
    return out


def flat_keys(data: dict) -> dict:
    """A config mapping, sectioned or flat, as flat keys (through :func:`nest`, so checked for unknown,
    misplaced and doubled keys, but not for values): to compare stored configs key by key."""
    return {k: v for part in nest(data).values() for k, v in part.items()}


def config_from_dict(data: dict, source: str = "config") -> PPOConfig:
    """The validated config of a mapping, sectioned or flat (:func:`nest`)."""
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: expected a mapping of config keys, got {type(data).__name__}")
    sections = nest(data)
    return PPOConfig(**{s: SECTION_TYPES[s](**sections.get(s, {})) for s in SECTIONS}).validate()


def config_from_checkpoint(stored: dict, source: str = "checkpoint") -> PPOConfig:
    """The config a checkpoint stores: sectioned (written since the sections) or flat (earlier releases,
    the shipped baselines among them), read through the same :func:`nest`."""
    try:
        return config_from_dict(stored, source)
    except ConfigError as e:
        raise ConfigError(f"{source}: its config: {e}") from None


def parse_override(text: str) -> tuple[str, Any]:
    """``"key=value"`` -> ``(key, value)``, the value read as YAML (``3e-4``, ``true``, ``[64, 64]``).

    A key may name its section (``ppo.learning_rate=1e-4``) or not (``learning_rate=1e-4``); a
    further dotted part sets one entry of a mapping key: ``opponent_mix.self=0.6``.
    """
    if "=" not in text:
        raise ConfigError(f"--set expects key=value, got {_short(text)}")
    name, _, raw = text.partition("=")
    name = name.strip()
    value = safe_yaml(raw, f"--set {_short(text)}: value") if raw.strip() else ""
    # YAML 1.1 reads "3e-4" as a string; accept scientific notation for numbers.
    if isinstance(value, str):
        try:
            value = float(value) if any(c in value for c in ".eE") else int(value)
        except ValueError:
            pass
    return name, value


def override_key(text: str) -> str:
    """The config key an override ``[section.]key[.entry]=value`` sets (``ppo.learning_rate=1`` -> ``learning_rate``)."""
    top, _, rest = text.partition("=")[0].strip().partition(".")
    return rest.partition(".")[0] if top in SECTIONS else top


def apply_overrides(data: dict, overrides: list[str]) -> dict[str, dict]:
    """``data`` (sectioned or flat) as sections with the ``[section.]key[.entry]=value`` overrides applied."""
    data = nest(data)
    for text in overrides:
        name, value = parse_override(text)
        top, _, sub = name.partition(".")
        if top in SECTIONS:
            if not sub:
                raise _unknown_key(top)
            section = top
            top, _, sub = sub.partition(".")
            if top not in SECTIONS[section]:
                raise _unknown_key(top, section)
        elif top not in FIELDS:
            raise _unknown_key(top)
        section = data.setdefault(SECTION_OF[top], {})
        if sub:
            factory = FIELDS[top].default_factory
            current = section.get(top, factory() if factory is not dataclasses.MISSING else None)
            if not isinstance(current, dict):
                raise ConfigError(f"--set {_short(text)}: {top!r} is not a mapping")
            section[top] = {**current, sub: value}
        else:
            section[top] = value
    return data


def load_config(path: str | Path | None = None, overrides: list[str] | None = None) -> PPOConfig:
    """The config of ``path`` (YAML, with the files it inherits from) with ``overrides`` applied, validated.

    Every error is a :class:`ConfigError` that names the file once: ``config file 'X': ...``."""
    data: dict = {}
    source = None
    if path is not None:
        source = f"config file {str(path)!r}"
        data = read_config_file(Path(path), nest)
    try:
        return config_from_dict(apply_overrides(data, overrides or []))
    except ConfigError as e:
        raise ConfigError(f"{source}: {e}" if source else str(e)) from None
