"""Every hyper-parameter of a PPO run, loaded from YAML in sections.

``load_config("configs/vint_ppo.yaml", ["ppo.learning_rate=1e-4"])`` reads the
YAML file, applies ``--set key=value`` overrides, and checks every key and
type: an unknown or mistyped key is an error naming the nearest known key.

A config file is nested by job (:data:`SECTIONS`: ``run``, ``collection``,
``opponents``, ``model``, ``shaping``, ``ppo``, ``warm_start``,
``evaluation``)::

    run: {name: quick, game: vint_v0, seed: 1}
    ppo: {learning_rate: 0.0001, clip_coef: 0.1}

Every key has one name, the same inside its section and alone, so the flat
files of earlier releases (``learning_rate: 0.0001`` at the top) and
``--set learning_rate=...`` keep working; a key given twice (flat and in its
section) is an error.  The resolved :class:`PPOConfig` is flat (``cfg.learning_rate``);
:meth:`PPOConfig.to_nested` gives the sectioned form a run writes to its
``config.yaml``.
"""

from __future__ import annotations

import dataclasses
import difflib
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from vint_env import games as _games
from vint_env.agents.spec import AgentSpecError, parse_spec
from vint_env.inputs import InputFileError, read_regular

#: The env names a run may train on (from :mod:`vint_env.games`).
GAMES = _games.env_names()
ENV_SOURCES = ("aec", "vector")
OPPONENT_KINDS = ("self", "pool", "random", "rule")


#: Keys that may change when resuming a run (``vint-train --resume DIR --set key=value``): they do not
#: change what was learnt up to the checkpoint.  A new ``total_timesteps`` changes the learning-rate
#: schedule from the checkpoint on (so the run then differs from an uninterrupted one), and a new
#: ``torch_threads`` may change float rounding.
RESUME_OVERRIDABLE = ("total_timesteps", "max_minutes", "eval_every", "eval_deals", "final_eval_deals",
                      "eval_opponents", "checkpoint_every", "keep_checkpoints", "torch_threads", "ray_address")


class ConfigError(ValueError):
    """A config file or override that is malformed, unknown or of the wrong type."""


@dataclass
class PPOConfig:
    """A PPO self-play run. Comments give the meaning; YAML keys are the field names."""

    # --- run ----------------------------------------------------------------
    name: str = "vint_ppo"               # run name: folder runs/<name> and log titles
    game: str = "vint_v0"                # vint_v0 | whist_v0 | solo_whist_v0 | vint2p_v0 (or vint, whist ...)
    env_kwargs: dict = field(default_factory=dict)  # options of the env, e.g. {reward_scale: 0.001}
    seed: int = 1                        # everything random in the run derives from it
    total_timesteps: int = 1_000_000     # env steps (every seat's decisions) to train for; the run stops
                                         # past them; 0 with a teacher: clone it and stop (no PPO)
    max_minutes: float = 0.0             # stop (with a checkpoint) after this wall time; 0 = no limit.
                                         # Schedules anneal by the share of the budget used: the larger of
                                         # steps / total_timesteps and minutes / max_minutes
    torch_threads: int = 1               # torch.set_num_threads; 1 leaves the other core to the envs

    # --- collection -----------------------------------------------------------
    env_source: str = "aec"              # aec: a Python loop over PettingZoo AEC envs; vector: vint_env.vector
    num_envs: int = 32                   # games played side by side (one batched forward pass per step)
    num_steps: int = 128                 # env steps per game per rollout; the deal in progress is then finished
    collectors: int = 0                  # 0: collect in the learner, then update; N >= 1: N collector processes
                                         # (or Ray actors) of num_envs games each, collecting while the learner
                                         # updates (one update of policy lag; vint_env/training/collectors.py)
    ray_address: str = ""                # with collectors >= 1: run them as Ray actors on this cluster
                                         # ("local": a Ray started here; "auto": the running one)
    duplicate: bool = False              # every deal at two tables (games i and i + num_envs/2), the learner's
                                         # side in the other seats at the second; each seat's return minus the
                                         # same seat's at the other table (vint_env/training/duplicate.py)

    # --- self-play opponents --------------------------------------------------
    # Probability of each kind of opponent partnership for a game of the rollout:
    # self = all four seats are the learner; pool = a past checkpoint of it;
    # random / rule = the scripted bots. Must sum to 1.
    opponent_mix: dict = field(default_factory=lambda: {"self": 0.5, "pool": 0.3, "random": 0.1, "rule": 0.1})
    pool_size: int = 8                   # past policies kept in the pool (oldest dropped)
    pool_add_every: int = 10             # updates between snapshots into the pool

    # --- network --------------------------------------------------------------
    network: str = "mlp"                 # a registered network (vint_env/agents/learned/networks.py), never an import path
    network_kwargs: dict = field(default_factory=lambda: {"hidden_sizes": [256, 256]})

    # --- training rewards (vint_env/training/shaping.py; evaluation is always in real points) ---
    shaping_trick_reward: float = 0.0    # +this to the side that wins a trick, -this to the other, at the trick
    shaping_exclude_items: list = field(default_factory=list)  # score items left out, e.g. [honours, coronets]
    shaping_deal_transform: str = "none"  # none | symlog: c*sign(r)*ln(1+|r|/c) of the deal reward r (env scale)
    shaping_deal_scale: float = 1.0      # c of symlog, in env reward units

    # --- centralised critic (vint_env/training/critic.py) ------------------------------
    central_critic: bool = False         # value from env.state() (every hand) + the seat; the actor never sees it
    critic_hidden_sizes: list = field(default_factory=lambda: [256, 256])

    # --- PPO ------------------------------------------------------------------
    learning_rate: float = 3e-4
    anneal_lr: bool = True               # linear decay to 0 over the budget (see max_minutes)
    gamma: float = 1.0                   # discount per decision of the same seat (deals are short)
    gae_lambda: float = 0.95
    num_minibatches: int = 4
    update_epochs: int = 4
    norm_adv: bool = True                # normalise advantages per minibatch
    clip_coef: float = 0.2
    clip_coef_final: float | None = None  # anneal clip_coef linearly to this over the budget; None = constant
    clip_vloss: bool = True              # clipped value loss (as in CleanRL)
    ent_coef: float = 0.01
    ent_coef_final: float | None = None  # anneal ent_coef linearly to this over the budget; None = constant
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    target_kl: float = 0.0               # stop the epochs of an update early above this KL; 0 = never
    fused_adam: bool = False             # torch's fused Adam kernel (the same algorithm, 4x faster a step on CPU;
                                         # floats differ in the last bits from the default, so off by default)

    # --- imitation warm start (vint_env/training/imitation.py); off while teacher is "" --
    # The teacher plays teacher_deals deals in all four seats (auction and play); the policy first clones
    # its decisions (masked cross-entropy), then PPO fine-tunes it with a KL term toward the clone.
    teacher: str = ""                    # agent spec of the teacher: rule, pimc, ppo:PATH, py:MODULE:NAME ...
    teacher_deals: int = 1000            # deals of teacher data (cached in <runs_dir>/teacher_cache)
    teacher_workers: int = 1             # processes that play the teacher's deals (the data do not depend on it)
    teacher_cache: bool = True           # keep the teacher data on disk, keyed by game/teacher/seed/deals/options
    bc_epochs: int = 4                   # behaviour-cloning passes over the teacher data
    bc_batch_size: int = 512
    bc_learning_rate: float = 0.001
    bc_value_coef: float = 0.5           # also fit the value head to the returns of the teacher's seats
    teacher_values: str = ""             # "dd": card decisions valued double-dummy on the true deal; "rollout": every
                                         # decision's actions valued by the teacher's play to the end of the true deal;
                                         # "rollout_auction": the same for the auction only (vint_env/training/value_targets.py)
    bc_value_scale: float = 1.0          # with teacher_values: logits per point of a card's value (softmax sharpness)
    bc_value_unit: float = 0.0           # with teacher_values: > 0 compresses value differences beyond this many points (log)
    bc_teacher_bonus: float = 0.0        # with teacher_values: points added to the teacher's card (keeps its choice on near-ties)
    residual_base: str = ""              # "rule": the trained agent plays the rule bot, overridden where its network
    residual_margin: float = 0.0         # ... values another action more by this many logits (vint_env/agents/learned/residual.py)
    residual_actions: str = "cards"      # ... on card decisions only ("cards"), on the others only ("auction") or on all ("all")
    bc_holdout: float = 0.1              # share of the teacher's deals held out to measure the clone, not trained on
    init_from: str = ""                  # a checkpoint (PATH.pt) whose network starts the run instead of cloning (a
                                         # clone, the previous best); with kl_coef > 0 it is the KL reference
    kl_coef: float = 0.0                 # weight of KL(clone || policy) in the PPO loss at the start; 0 = none
    kl_decay: float = 1.0                # the KL weight falls linearly to 0 at this share of the budget

    # --- evaluation, logging, checkpoints -------------------------------------
    eval_every: int = 20                 # updates between evaluations (also one at the end); 0 = only at the end
    eval_deals: int = 200                # duplicate deals per opponent at each evaluation
    final_eval_deals: int = 500          # duplicate deals per opponent in the final evaluation
    eval_opponents: list = field(default_factory=lambda: ["random", "rule"])
    checkpoint_every: int = 10           # updates between checkpoints (also one at the end)
    keep_checkpoints: int = 3            # numbered checkpoints kept besides latest.pt; 0 = keep all
    runs_dir: str = "runs"               # the run writes to <runs_dir>/<name>

    def validate(self) -> PPOConfig:
        """Check values (types are checked when loading); return self."""
        def need(cond: bool, msg: str):
            if not cond:
                raise ConfigError(msg)
        known = isinstance(self.game, str) and (self.game in GAMES or self.game in _games.names())
        need(known, f"game must be one of {GAMES} (or their names {_games.names()}), got {self.game!r}")
        record = _games.get(self.game)          # resolved once: "whist" is whist_v0, as in every CLI
        self.game = record.env_name
        from vint_env.evaluation.bench_sets import frozen_set_of
        frozen = frozen_set_of(self.seed)
        need(frozen is None, f"seed {self.seed} draws the benchmark's frozen boards ({frozen}: the trainer's "
                             f"evaluation boards come from the run's seed); training must never use them: "
                             f"choose another seed")
        if isinstance(self.env_kwargs, dict):
            declared = {p.name: p for p in record.parameters}   # the game's declared options
            for key, value in self.env_kwargs.items():
                try:
                    declared[key].check(value) if key in declared else None
                except ValueError as e:
                    need(False, f"env_kwargs.{e}")
        need(self.env_source in ENV_SOURCES, f"env_source must be one of {ENV_SOURCES}, got {self.env_source!r}")
        need(self.total_timesteps >= 1 or (self.total_timesteps == 0 and self.teacher and self.bc_epochs > 0),
             f"total_timesteps must be >= 1 (0 only for a run that clones a teacher and stops: "
             f"teacher and bc_epochs >= 1), got {self.total_timesteps!r}")
        for key in ("num_envs", "num_steps", "num_minibatches", "update_epochs",
                    "pool_size", "pool_add_every", "torch_threads", "checkpoint_every", "teacher_deals",
                    "teacher_workers", "bc_batch_size"):
            need(getattr(self, key) >= 1, f"{key} must be >= 1, got {getattr(self, key)!r}")
        need(self.collectors >= 0, f"collectors must be >= 0, got {self.collectors!r}")
        need(not self.ray_address or self.collectors >= 1,
             f"ray_address={self.ray_address!r} runs the collectors on Ray: it needs collectors >= 1")
        if self.duplicate:
            from .duplicate import check_game, check_pairs
            try:
                check_game(self.game)
                check_pairs(self.num_envs)
            except ValueError as e:
                need(False, f"duplicate: {e}")
        need(not (self.central_critic and self.collectors),
             "central_critic needs the games' states, which only the learner's own collection has: collectors must be 0")
        for key in ("eval_every", "eval_deals", "final_eval_deals", "keep_checkpoints", "max_minutes",
                    "ent_coef", "vf_coef", "target_kl", "bc_epochs", "bc_value_coef", "kl_coef"):
            need(getattr(self, key) >= 0, f"{key} must be >= 0, got {getattr(self, key)!r}")
        need(self.learning_rate > 0, f"learning_rate must be > 0, got {self.learning_rate!r}")
        need(0 <= self.gamma <= 1, f"gamma must be in [0, 1], got {self.gamma!r}")
        need(0 <= self.gae_lambda <= 1, f"gae_lambda must be in [0, 1], got {self.gae_lambda!r}")
        need(self.clip_coef > 0, f"clip_coef must be > 0, got {self.clip_coef!r}")
        need(self.clip_coef_final is None or self.clip_coef_final > 0,
             f"clip_coef_final must be > 0 (or null: constant), got {self.clip_coef_final!r}")
        need(self.ent_coef_final is None or self.ent_coef_final >= 0,
             f"ent_coef_final must be >= 0 (or null: constant), got {self.ent_coef_final!r}")
        need(self.max_grad_norm > 0, f"max_grad_norm must be > 0, got {self.max_grad_norm!r}")
        need(self.bc_learning_rate > 0, f"bc_learning_rate must be > 0, got {self.bc_learning_rate!r}")
        from vint_env.agents.learned.residual import ACTIONS, BASES
        need(self.residual_base in ("", *BASES),
             f"residual_base must be '' or one of {BASES}, got {self.residual_base!r}")
        need(self.residual_actions in ACTIONS,
             f"residual_actions must be one of {ACTIONS}, got {self.residual_actions!r}")
        need(self.residual_margin >= 0, f"residual_margin must be >= 0, got {self.residual_margin!r}")
        need(self.bc_value_unit >= 0, f"bc_value_unit must be >= 0, got {self.bc_value_unit!r}")
        need(self.bc_teacher_bonus >= 0, f"bc_teacher_bonus must be >= 0, got {self.bc_teacher_bonus!r}")
        need(self.bc_value_scale > 0, f"bc_value_scale must be > 0, got {self.bc_value_scale!r}")
        if self.teacher_values:
            from .value_targets import check_values
            need(bool(self.teacher), f"teacher_values={self.teacher_values!r} labels a teacher's deals: it needs a teacher")
            try:
                check_values(self.teacher_values, self.game, self.env_kwargs)
            except ValueError as e:
                need(False, str(e))
        need(0 <= self.bc_holdout < 1, f"bc_holdout must be in [0, 1), got {self.bc_holdout!r}")
        need(0 < self.kl_decay <= 1, f"kl_decay must be in (0, 1], got {self.kl_decay!r}")
        need(self.kl_coef == 0 or (self.teacher and self.bc_epochs > 0) or self.init_from,
             f"kl_coef={self.kl_coef:g} pulls toward the cloned teacher: it needs a teacher and bc_epochs >= 1 "
             f"(or init_from: the checkpoint it starts from)")
        need(not (self.init_from and self.teacher),
             f"init_from={self.init_from!r} starts from a trained network: it takes no teacher to clone "
             f"(teacher={self.teacher!r})")
        need(not self.init_from or Path(self.init_from).is_file(),
             f"init_from: no checkpoint file {self.init_from!r}")
        need(self.shaping_trick_reward >= 0, f"shaping_trick_reward must be >= 0, got {self.shaping_trick_reward!r}")
        need(self.shaping_deal_transform in ("none", "symlog"),
             f"shaping_deal_transform must be 'none' or 'symlog', got {self.shaping_deal_transform!r}")
        need(self.shaping_deal_scale > 0, f"shaping_deal_scale must be > 0, got {self.shaping_deal_scale!r}")
        need(all(isinstance(i, str) for i in self.shaping_exclude_items),
             f"shaping_exclude_items must be score item names, got {self.shaping_exclude_items!r}")
        unknown = set(self.opponent_mix) - set(OPPONENT_KINDS)
        need(not unknown, f"opponent_mix has unknown kind(s) {sorted(unknown)}; known: {OPPONENT_KINDS}")
        for kind, p in self.opponent_mix.items():
            need(isinstance(p, (int, float)) and not isinstance(p, bool) and p >= 0,
                 f"opponent_mix.{kind} must be a number >= 0, got {p!r}")
        total = sum(self.opponent_mix.values())
        need(abs(total - 1.0) < 1e-6, f"opponent_mix must sum to 1, sums to {total:g}: {self.opponent_mix}")
        need(self.opponent_mix.get("self", 0) > 0 or any(self.opponent_mix.get(k, 0) > 0 for k in
                                                          ("pool", "random", "rule")),
             "opponent_mix gives no game to play")
        bad = [o for o in self.eval_opponents if not isinstance(o, str)]
        need(not bad, f"eval_opponents must be agent specs (strings), got {bad!r}")
        for key, text in agent_spec_texts(self):
            try:
                parse_spec(text)
            except AgentSpecError as e:
                raise ConfigError(f"{key}: {e}") from None
        need(isinstance(self.network_kwargs, dict), "network_kwargs must be a mapping")
        return self

    @property
    def rollout_steps(self) -> int:
        """Least env steps per update (``num_envs * num_steps``; finishing the deals adds more)."""
        return self.num_envs * self.num_steps

    def to_dict(self) -> dict:
        """Flat: key -> value (what checkpoints store and runs compare)."""
        return dataclasses.asdict(self)

    def to_nested(self) -> dict:
        """Sectioned, as a config file is written: section -> key -> value."""
        flat = self.to_dict()
        return {section: {k: flat[k] for k in keys} for section, keys in SECTIONS.items()}


FIELDS = {f.name: f for f in dataclasses.fields(PPOConfig)}
_HINTS = typing.get_type_hints(PPOConfig)

#: The sections of a config file, each the keys of one job of the trainer (the module that reads them).
SECTIONS: dict[str, tuple[str, ...]] = {
    "run": ("name", "game", "env_kwargs", "seed", "total_timesteps", "max_minutes", "torch_threads", "runs_dir"),
    "collection": ("env_source", "num_envs", "num_steps", "collectors", "ray_address",  # sources.py, selfplay.py,
                   "duplicate"),                                                       # collectors.py, duplicate.py
    "opponents": ("opponent_mix", "pool_size", "pool_add_every"),                   # pool.py
    "model": ("network", "network_kwargs", "central_critic", "critic_hidden_sizes"),  # agents/learned/networks.py
    "shaping": ("shaping_trick_reward", "shaping_exclude_items", "shaping_deal_transform",
                "shaping_deal_scale"),                                              # shaping.py
    "ppo": ("learning_rate", "anneal_lr", "gamma", "gae_lambda", "num_minibatches", "update_epochs", "norm_adv",
            "clip_coef", "clip_coef_final", "clip_vloss", "ent_coef", "ent_coef_final", "vf_coef",
            "max_grad_norm", "target_kl", "fused_adam"),                            # ppo.py
    "warm_start": ("teacher", "teacher_deals", "teacher_workers", "teacher_cache", "bc_epochs", "bc_batch_size",
                   "bc_learning_rate", "bc_value_coef", "teacher_values", "bc_value_scale", "bc_value_unit",
                   "bc_teacher_bonus", "residual_base", "residual_margin", "residual_actions", "bc_holdout",
                   "init_from", "kl_coef", "kl_decay"),                                          # warm_start.py
    "evaluation": ("eval_every", "eval_deals", "final_eval_deals", "eval_opponents", "checkpoint_every",
                   "keep_checkpoints"),                                             # eval_schedule.py, checkpoints.py
}
SECTION_OF = {key: section for section, keys in SECTIONS.items() for key in keys}
assert sorted(SECTION_OF) == sorted(FIELDS), set(FIELDS) ^ set(SECTION_OF)   # every key in exactly one section
QUALIFIED = [f"{SECTION_OF[k]}.{k}" for k in FIELDS]


def _unknown_key(key: str, section: str | None = None) -> ConfigError:
    """The error for an unknown key (``section``: the section it was given in), naming the nearest key."""
    name = f"{section}.{key}" if section else key
    if section is None and key in SECTIONS:
        return ConfigError(f"config section {key!r} must be a mapping of its keys: {', '.join(SECTIONS[key])}")
    if section is not None and key in SECTION_OF:
        return ConfigError(f"config key {key!r} is not in section {section!r}: it is {SECTION_OF[key]}.{key}")
    close = difflib.get_close_matches(name, QUALIFIED if section else list(FIELDS) + list(SECTIONS), n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    listing = (f"keys of {section}: {', '.join(SECTIONS[section])}" if section in SECTIONS
               else f"sections: {', '.join(SECTIONS)}; keys: {', '.join(FIELDS)}")
    return ConfigError(f"unknown config key {name!r}{hint}; {listing}")


def flatten(data: dict) -> dict:
    """A config mapping, sectioned or flat (or a mix), as flat keys; unknown or doubled keys are errors."""
    flat: dict = {}
    def put(key, value):
        if key in flat:
            raise ConfigError(f"config key {key!r} is given twice (alone and as {SECTION_OF[key]}.{key})")
        flat[key] = value
    for key, value in data.items():
        key = str(key)
        if key in SECTIONS and key not in FIELDS:
            if not isinstance(value, dict):
                raise _unknown_key(key)
            for sub, v in value.items():
                if str(sub) not in SECTIONS[key]:
                    raise _unknown_key(str(sub), key)
                put(str(sub), v)
        elif key in FIELDS:
            put(key, value)
        else:
            raise _unknown_key(key)
    return flat


def _check_type(key: str, value: Any) -> Any:
    """``value`` converted to the field's type, or a ConfigError."""
    hint = _HINTS[key]
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
        value = float(value) if ok else value
    elif origin is str:
        ok = isinstance(value, str)
    elif origin is dict:
        ok = isinstance(value, dict)
    elif origin is list:
        ok = isinstance(value, list)
    else:  # pragma: no cover - every field has one of the types above
        ok = True
    if not ok:
        raise ConfigError(f"config key {key!r} must be of type {origin.__name__}, got {value!r} "
                          f"({type(value).__name__})")
    return value


def agent_spec_texts(cfg: PPOConfig) -> list[tuple[str, str]]:
    """``(field, spec text)`` of every agent spec ``cfg`` names: its teacher and its evaluation opponents."""
    return ([("teacher", cfg.teacher)] if cfg.teacher else []) + [("eval_opponents", o) for o in cfg.eval_opponents]


def code_specs(cfg: PPOConfig) -> dict[str, str]:
    """The fields of ``cfg`` whose agent specs import or run code (kinds that declare ``runs_code``, as
    ``py:MODULE:NAME``), by field name, decided on the parsed specs (``" py:this:x"`` is one too).

    ``vint-train --resume`` reads its config from the checkpoint; those fields
    are used only when the user's own ``--config`` or ``--set`` names them too.
    """
    found: dict[str, list[str]] = {}
    for key, text in agent_spec_texts(cfg):
        spec = parse_spec(text)
        if spec.declaration.runs_code:
            found.setdefault(key, []).append(str(spec))
    return {key: ", ".join(specs) for key, specs in found.items()}


def config_from_dict(data: dict, source: str = "config") -> PPOConfig:
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: expected a mapping of config keys, got {type(data).__name__}")
    values = {key: _check_type(key, value) for key, value in flatten(data).items()}
    return PPOConfig(**values).validate()


def parse_override(text: str) -> tuple[str, Any]:
    """``"key=value"`` -> ``(key, value)``, the value read as YAML (``3e-4``, ``true``, ``[64, 64]``).

    A key may name its section (``ppo.learning_rate=1e-4``) or not (``learning_rate=1e-4``); a
    further dotted part sets one entry of a mapping key: ``opponent_mix.self=0.6``.
    """
    if "=" not in text:
        raise ConfigError(f"--set expects key=value, got {text!r}")
    key, _, raw = text.partition("=")
    key = key.strip()
    value = safe_yaml(raw, f"--set {text!r}: value") if raw.strip() else ""
    # YAML 1.1 reads "3e-4" as a string; accept scientific notation for numbers.
    if isinstance(value, str):
        try:
            value = float(value) if any(c in value for c in ".eE") else int(value)
        except ValueError:
            pass
    return key, value


def override_key(text: str) -> str:
    """The config key an override ``[section.]key[.entry]=value`` sets (``ppo.learning_rate=1`` -> ``learning_rate``)."""
    top, _, rest = text.partition("=")[0].strip().partition(".")
    return rest.partition(".")[0] if top in SECTIONS and top not in FIELDS else top


def apply_overrides(data: dict, overrides: list[str]) -> dict:
    """``data`` (sectioned or flat) as flat keys with the ``key=value`` overrides applied."""
    data = flatten(data)
    for text in overrides:
        key, value = parse_override(text)
        top, _, sub = key.partition(".")
        if top in SECTIONS and top not in FIELDS:
            if not sub:
                raise _unknown_key(top)
            top, _, sub = sub.partition(".")
            if top not in SECTIONS[key.partition(".")[0]]:
                raise _unknown_key(top, key.partition(".")[0])
        elif top not in FIELDS:
            raise _unknown_key(top)
        if sub:
            factory = FIELDS[top].default_factory
            current = data.get(top, factory() if factory is not dataclasses.MISSING else None)
            if not isinstance(current, dict):
                raise ConfigError(f"--set {text!r}: {top!r} is not a mapping")
            data[top] = {**current, sub: value}
        else:
            data[top] = value
    return data


#: Bounds of a config file read as YAML: a config is a page of keys, so anything larger is refused before parsing.
MAX_CONFIG_BYTES = 1 << 20
MAX_CONFIG_DEPTH = 16


class _UniqueKeys(yaml.SafeLoader):
    """YAML's safe loader, refusing a key given twice in one mapping (YAML keeps the last, silently)."""

    def construct_mapping(self, node, deep=False):
        seen = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            line = key_node.start_mark.line + 1
            try:
                if key in seen:
                    raise ConfigError(f"key {key!r} is given twice (lines {seen[key]} and {line}); give it once")
                seen[key] = line
            except TypeError:            # an unhashable key: the base loader names it
                continue
        return super().construct_mapping(node, deep)


def safe_yaml(text: str, source: str):
    """``yaml.safe_load`` of a config, refusing aliases (``*name``: the billion-laughs bomb), text over
    ``MAX_CONFIG_BYTES`` and nesting deeper than ``MAX_CONFIG_DEPTH``, all before anything is built,
    and a key given twice in one mapping."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_CONFIG_BYTES:
        raise ConfigError(f"{source}: larger than {MAX_CONFIG_BYTES} bytes; a config is a page of keys")
    depth = 0
    try:
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            if isinstance(event, yaml.AliasEvent):
                raise ConfigError(f"{source}: YAML aliases (*{event.anchor}) are not accepted in a config; "
                                  f"write the value out")
            if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                depth += 1
                if depth > MAX_CONFIG_DEPTH:
                    raise ConfigError(f"{source}: nested deeper than {MAX_CONFIG_DEPTH} levels")
            elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                depth -= 1
        return yaml.load(text, Loader=_UniqueKeys)
    except ConfigError as e:
        raise ConfigError(f"{source}: {e}") from None
    except yaml.YAMLError as e:
        raise ConfigError(f"{source} is not valid YAML: {e}") from None


def load_config(path: str | Path | None = None, overrides: list[str] | None = None) -> PPOConfig:
    """The config of ``path`` (YAML) with ``overrides`` applied, validated."""
    data: dict = {}
    source = "defaults"
    if path is not None:
        path = Path(path)
        try:        # a regular file (/dev/zero or a FIFO is refused by name, not read), a page of keys
            text = read_regular(path, "config file", MAX_CONFIG_BYTES).decode("utf-8")
        except FileNotFoundError:
            raise ConfigError(f"config file {str(path)!r} does not exist") from None
        except InputFileError as e:
            raise ConfigError(f"{e}; a config is a page of keys") from None
        except (UnicodeDecodeError, OSError) as e:
            raise ConfigError(f"config file {str(path)!r} is not readable UTF-8 text: {e}") from None
        data = safe_yaml(text, f"config file {str(path)!r}") or {}
        if not isinstance(data, dict):
            raise ConfigError(f"config file {str(path)!r}: expected a mapping of keys, got {type(data).__name__}")
        source = str(path)
    data = apply_overrides(data, overrides or [])
    try:
        return config_from_dict(data, source)
    except ConfigError as e:
        raise ConfigError(f"{source}: {e}") from None
