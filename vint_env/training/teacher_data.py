"""A teacher's games as supervised data for the imitation warm start, cached on disk.

The teacher (any agent spec: ``rule``, ``pimc``, ``ppo:PATH`` ...) plays all
four seats of ``deals`` deals of the training env (auction and play alike);
every decision becomes a sample: the observation, the legal-action mask, the
teacher's action, and the return that seat went on to receive (the env's
rewards from that decision to the end of the deal).  With ``values="dd"``
each card decision also gets the double-dummy points of every legal card on
the true deal, with ``values="rollout"`` every decision the points of every
legal action followed by the teacher's play to the end of the true deal
(``"rollout_auction"``: the auction's decisions only)
(:mod:`vint_env.training.value_targets`): the regression target of the clone instead
of the teacher's action.

Deal ``k`` is dealt from seed ``(seed, k)`` and the teacher's seats are
seeded from it too, so the data depend on ``(game, env options, teacher,
seed, deals)`` only: the same whatever the number of worker processes
(the deals are played in fixed chunks, split over ``workers`` processes).

The data are cached under ``cache_dir`` in one ``.npz`` file per key,
written atomically; a teacher whose behaviour changes under the same spec
(a rule bot edited, a checkpoint rewritten: checkpoints are keyed by their
content) needs its cache file deleted.
"""

from __future__ import annotations

import concurrent.futures as cf
import hashlib
import json
import multiprocessing as mp
import re
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vint_env.atomic import atomic_write
from vint_env.agents.spec import parse_spec
from vint_env.envs.playing import Decision, play_episode, start_episode
from vint_env.games import Game


CHUNK_DEALS = 25          # deals per job: fixes the split, so any worker count gives the same data
FORMAT = 2                # bump when the file layout changes (old cache files are then ignored)


@dataclass
class TeacherData:
    """Decisions of a teacher.  Observations are kept bit-packed when they are 0/1 (all shipped
    layouts are), ``obs(idx)`` unpacks rows as float32."""

    obs_packed: np.ndarray     # [N, ceil(D/8)] uint8 (packed) or [N, D] float32 (not packed)
    packed: bool
    obs_size: int
    masks: np.ndarray          # [N, A] bool
    actions: np.ndarray        # [N] int64
    returns: np.ndarray        # [N] float32: the deciding seat's rewards from this decision on
    seats: np.ndarray          # [N] int8
    deal_ids: np.ndarray       # [N] int32
    values: np.ndarray | None = None   # [N, A] float32: each legal card's points (NaN: none; rows without a value)

    def __len__(self) -> int:
        return len(self.actions)

    def obs(self, idx=None) -> np.ndarray:
        rows = self.obs_packed if idx is None else self.obs_packed[idx]
        if not self.packed:
            return np.asarray(rows, dtype=np.float32)
        return np.unpackbits(rows, axis=1, count=self.obs_size).astype(np.float32)

    @classmethod
    def from_arrays(cls, obs: np.ndarray, masks, actions, returns, seats, deal_ids, values=None) -> TeacherData:
        obs = np.asarray(obs, dtype=np.float32).reshape(len(actions), -1)
        binary = bool(np.all((obs == 0) | (obs == 1)))
        stored = np.packbits(obs.astype(np.uint8), axis=1) if binary else obs
        return cls(stored, binary, obs.shape[1], np.asarray(masks, dtype=bool).reshape(len(actions), -1),
                   np.asarray(actions, dtype=np.int64), np.asarray(returns, dtype=np.float32),
                   np.asarray(seats, dtype=np.int8), np.asarray(deal_ids, dtype=np.int32),
                   None if values is None else np.asarray(values, dtype=np.float32).reshape(len(actions), -1))

    @property
    def value_rows(self) -> np.ndarray:
        """[N] bool: rows whose target is the cards' values rather than the teacher's action."""
        if self.values is None:
            return np.zeros(len(self), dtype=bool)
        return ~np.isnan(self.values).all(axis=1)

    @classmethod
    def concat(cls, parts: list[TeacherData]) -> TeacherData:
        if not parts:
            raise ValueError("no teacher data")
        if len({p.values is None for p in parts}) != 1:
            raise ValueError("teacher data with and without card values cannot be joined")
        values = None if parts[0].values is None else np.concatenate([p.values for p in parts])
        if len({(p.packed, p.obs_size) for p in parts}) != 1:   # a chunk with a non-0/1 value: unpack all
            return cls.from_arrays(np.concatenate([p.obs() for p in parts]),
                                   *(np.concatenate([getattr(p, k) for p in parts])
                                     for k in ("masks", "actions", "returns", "seats", "deal_ids")), values)
        return cls(np.concatenate([p.obs_packed for p in parts]), parts[0].packed, parts[0].obs_size,
                   *(np.concatenate([getattr(p, k) for p in parts])
                     for k in ("masks", "actions", "returns", "seats", "deal_ids")), values)

    def save(self, path: Path) -> None:
        """Write atomically (a temporary file in the same folder, renamed over ``path``)."""
        with atomic_write(path) as f:
            np.savez_compressed(f, format=FORMAT, obs=self.obs_packed, packed=self.packed,
                                obs_size=self.obs_size, masks=np.packbits(self.masks, axis=1),
                                num_actions=self.masks.shape[1], actions=self.actions,
                                returns=self.returns, seats=self.seats, deal_ids=self.deal_ids,
                                **({} if self.values is None else {"values": self.values}))

    @classmethod
    def load(cls, path: Path) -> TeacherData:
        with np.load(path) as z:
            if int(z["format"]) != FORMAT:
                raise ValueError(f"{path}: teacher data format {int(z['format'])}, expected {FORMAT}")
            masks = np.unpackbits(z["masks"], axis=1, count=int(z["num_actions"])).astype(bool)
            return cls(z["obs"], bool(z["packed"]), int(z["obs_size"]), masks, z["actions"], z["returns"],
                       z["seats"], z["deal_ids"], z["values"] if "values" in z.files else None)


# ----------------------------------------------------------------------------- playing
def deal_seeds(seed: int, k: int) -> tuple[int, list[int]]:
    """The env seed of deal ``k`` and its four seats' agent seeds."""
    state = np.random.SeedSequence([seed, k]).generate_state(5, dtype=np.uint32)
    return int(state[0]), [int(x) for x in state[1:]]


def play_deals(game: Game, env_kwargs: dict, teacher: str, seed: int, first: int, count: int,
               values: str = "") -> TeacherData:
    """Deals ``first .. first+count-1`` played by the teacher in every seat (four, or two-player Vint's two) (with ``values="dd"``,
    the card decisions valued double-dummy; with ``values="rollout"``, every decision valued by rollouts).
    ``game``: its record (it travels to the worker processes as it is)."""
    from vint_env.agents.registry import load_agent
    from .value_targets import ROLLOUT_KINDS, DealValues, RolloutValues, check_values
    record = game
    check_values(values, record, env_kwargs)
    env = record.raw_env(**(env_kwargs or {}))
    names = list(env.possible_agents)
    agents = [load_agent(teacher, game=record) for _ in names]
    obs, masks, actions, seats, deal_ids, returns = [], [], [], [], [], []
    num_actions = env.action_space(names[0]).n
    valuer = (RolloutValues(record, num_actions, agents, cards=values == "rollout") if values in ROLLOUT_KINDS
              else DealValues(record, num_actions) if values else None)
    card_values: list[np.ndarray] = []
    for k in range(first, first + count):
        env_seed, agent_seeds = deal_seeds(seed, k)
        start_episode(env, agents, env_seed, agent_seeds)
        received = np.zeros(len(names))  # each seat's rewards so far in this deal
        start = len(actions)
        before: list[float] = []        # the seat's rewards before each decision

        def note(d: Decision) -> None:
            if valuer is not None:
                valuer.note(len(actions), env, d.observation)
            obs.append(d.observation["observation"])
            masks.append(d.observation["action_mask"])
            seats.append(d.seat)
            deal_ids.append(k)
            before.append(received[d.seat])

        def took(d: Decision) -> None:
            nonlocal received
            actions.append(int(d.action))
            received += [env.rewards[ag] for ag in names]

        play_episode(env, agents, before=note, after=took)
        returns += [received[seats[start + j]] - before[j] for j in range(len(before))]
        if valuer is not None:
            if values in ROLLOUT_KINDS:      # the teacher's own action is valued by the deal's real outcome
                solved = valuer.solve({r: (actions[r], returns[r]) for r in range(start, len(actions))})
            else:
                solved = valuer.solve()
            nothing = np.full(num_actions, np.nan, dtype=np.float32)
            card_values += [solved.get(row, nothing) for row in range(start, len(actions))]
    return TeacherData.from_arrays(np.stack(obs), np.stack(masks), actions, returns, seats, deal_ids,
                                   np.stack(card_values) if valuer is not None else None)


def _job(args) -> TeacherData:
    return play_deals(*args)


def generate(game: Game, env_kwargs: dict, teacher: str, seed: int, deals: int, workers: int = 1,
             chunk_deals: int = CHUNK_DEALS, values: str = "", on_deals=None) -> TeacherData:
    """The teacher's ``deals`` deals, in chunks of ``chunk_deals`` over ``workers`` processes
    (started with ``spawn``); the data do not depend on ``workers`` or ``chunk_deals``.  ``on_deals(n)``
    (optional) is told each chunk's ``n`` deals as it is done, in order."""
    if deals < 1:
        raise ValueError(f"teacher data needs at least one deal, got {deals}")
    on_deals = on_deals or (lambda n: None)
    jobs = [(game, dict(env_kwargs or {}), teacher, seed, first, min(chunk_deals, deals - first), values)
            for first in range(0, deals, chunk_deals)]
    parts = []
    if workers <= 1 or len(jobs) == 1:
        for job in jobs:
            parts.append(_job(job))
            on_deals(job[5])
        return TeacherData.concat(parts)
    with cf.ProcessPoolExecutor(max_workers=min(workers, len(jobs)), mp_context=mp.get_context("spawn")) as pool:
        for job, part in zip(jobs, pool.map(_job, jobs)):
            parts.append(part)
            on_deals(job[5])
        return TeacherData.concat(parts)


# ----------------------------------------------------------------------------- cache
def cache_key(game: Game, env_kwargs: dict, teacher: str, seed: int, deals: int, values: str = "",
              engine: bool = False) -> str:
    """File name of the cached data: readable game/teacher/seed/size, and a hash of everything that
    changes the data (env options, the teacher spec, a checkpoint teacher's file content, the game's
    observation layout: data cached before observation blocks were added are not reused; data played on the
    batched engine, ``engine``, apart from the envs').  The game is written by its env name (``whist_v0``), as
    the caches made before the game's one spelling were."""
    layout = game.layout
    ident = {"format": FORMAT, "game": game.env_name, "env_kwargs": env_kwargs or {}, "teacher": teacher,
             "seed": seed, "deals": deals, **({"values": values} if values else {}),
             **({"engine": True} if engine else {}),
             "layout": [layout.name, [[b.name, list(b.shape)] for b in layout.blocks.values()]]}
    spec = parse_spec(teacher)
    for label, path, role in spec.paths(defaults=False):     # a checkpoint teacher: its file's content
        if role == "file" and path.is_file():
            ident.setdefault("checkpoint_sha256", hashlib.sha256(path.read_bytes()).hexdigest())
    digest = hashlib.sha256(json.dumps(ident, sort_keys=True, default=str).encode()).hexdigest()[:12]
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", teacher)[:40]
    return (f"{game.env_name}-{slug}{'-' + values + 'values' if values else ''}{'-engine' if engine else ''}"
            f"-seed{seed}-{deals}deals-{digest}.npz")


def teacher_data(game: Game, env_kwargs: dict, teacher: str, seed: int, deals: int, workers: int = 1,
                 cache_dir: str | Path | None = None, say=None,
                 values: str = "", progress=None, engine_generate=None) -> tuple[TeacherData, Path | None, bool]:
    """``(data, cache file or None, whether it came from the cache)``; generated and cached if absent,
    as the stage ``teacher data`` of ``progress`` (:mod:`vint_env.training.progress`; a bar of deals).
    ``engine_generate``: the function that plays the deals on the batched engine instead of in ``workers``
    processes of envs (:func:`vint_env.training.engine_teacher.generate_on_engine`: the same rows, one
    process; passed in, so that this module does not import the engine's), its data cached apart."""
    from .progress import Quiet
    say = say or (lambda msg: None)
    progress = progress or Quiet(say)
    engine = engine_generate is not None
    path = Path(cache_dir) / cache_key(game, env_kwargs, teacher, seed, deals, values, engine) if cache_dir else None
    if path is not None and path.is_file():
        try:
            data = TeacherData.load(path)
            say(f"teacher data: {len(data)} decisions of {teacher!r} from the cache {path}")
            return data, path, True
        except Exception as e:  # a damaged or foreign file: make it again
            say(f"teacher data: cannot read {path} ({type(e).__name__}: {e}); generating it again")
    t0 = time.perf_counter()
    where = "on the batched engine" if engine else f"({workers} process(es))"
    say(f"teacher data: {teacher!r} plays {deals} deals of {game.name} in all seats {where}"
        + (", every card valued double-dummy" if values == "dd" else "")
        + (", every action valued by rollouts" if values == "rollout" else "")
        + (", every call valued by rollouts" if values == "rollout_auction" else "") + " ...")
    with progress.stage("teacher data", deals, "deal") as bar:
        if engine:
            data = engine_generate(game, env_kwargs, teacher, seed, deals, values=values, on_deals=bar.update)
        else:
            data = generate(game, env_kwargs, teacher, seed, deals, workers, values=values, on_deals=bar.update)
    say(f"teacher data: {len(data)} decisions in {time.perf_counter() - t0:.0f} s"
        + (f", cached in {path}" if path is not None else ""))
    if path is not None:
        data.save(path)
    return data, path, False
