"""Trained PPO policies as agents, and the checkpoint file format (PyTorch).

A checkpoint written by ``vint-train`` is a single ``.pt`` file (a dict saved
with ``torch.save``) that holds everything to use the policy as an agent and
to resume training:

=================  ==========================================================
key                meaning
=================  ==========================================================
``format``         ``"vint-env/ppo-checkpoint"`` (anything else is refused)
``version``        format version, currently 1
``game``           env name the policy was trained on (``"vint_v0"`` ...)
``env_kwargs``     the env options of training (e.g. ``reward_scale``)
``obs_size``       length of the flat observation vector
``num_actions``    size of the action space
``network``        ``{"name": ..., "kwargs": {...}}`` (see ``networks.py``)
``model``          the network's ``state_dict``
``config``         the full training config (a dict by section; flat in checkpoints made before the config
                   sections: ``vint_env.training.config.config_from_checkpoint`` reads both)
``trainer``        trainer state for ``--resume`` (optimizer, pool, RNG, counters)
=================  ==========================================================

It loads with ``torch.load(weights_only=True)`` (no pickled code runs).

>>> from vint_env.agents.learned.policy import PPOAgent           # doctest: +SKIP
>>> agent = PPOAgent.load("runs/vint/checkpoints/latest.pt", game="vint_v0")  # doctest: +SKIP
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numpy as np
import torch

from ...atomic import atomic_write
from ...inputs import InputFileError, check_regular_file
from ..base import Agent, legal_actions
from .networks import MaskedCategorical, build_network
from .stored_tensors import CheckpointError, check_archive, check_stored_tensors, compact_tensors

CHECKPOINT_FORMAT = "vint-env/ppo-checkpoint"
CHECKPOINT_VERSION = 1
REQUIRED_KEYS = ("game", "env_kwargs", "obs_size", "num_actions", "network", "model")
#: The key of the SHA-256 of every tensor in a checkpoint (written by save_checkpoint, checked on load).
DIGEST_KEY = "tensor_sha256"


def env_name(game: str) -> str:
    """The env name of a game as the checkpoint stores it: ``vint`` and ``vint_v0`` are both ``vint_v0``."""
    from ... import games
    return games.get(game).env_name


def tensor_digest(payload) -> str:
    """SHA-256 over every tensor of ``payload`` (nested dicts and lists), with its key path, dtype and shape.

    Stored in the checkpoint as ``tensor_sha256`` so a flipped byte in a
    weight is refused on load (torch's own format checks no contents).
    """
    digest = hashlib.sha256()

    def walk(x, where: str) -> None:
        if isinstance(x, torch.Tensor):
            t = x.detach().cpu().contiguous().reshape(-1)
            digest.update(f"{where}|{t.dtype}|{tuple(x.shape)}|".encode())
            digest.update(t.view(torch.uint8).numpy().tobytes())
        elif isinstance(x, dict):
            for k in sorted(x, key=repr):
                if not (where == "" and k == DIGEST_KEY):
                    walk(x[k], f"{where}/{k!r}")
        elif isinstance(x, (list, tuple)):
            for i, v in enumerate(x):
                walk(v, f"{where}/{i}")

    walk(payload, "")
    return digest.hexdigest()


def save_checkpoint(path: str | os.PathLike, payload: dict) -> Path:
    """Write ``payload`` to ``path`` atomically: a temporary file in the same
    folder, flushed to disk, then renamed over ``path``, so a kill at any
    moment leaves either the old file or the new one, never half a file.
    A tensor that is a view (sliced, transposed) is saved as a copy stored in
    full, as :func:`load_checkpoint` requires."""
    missing = [k for k in REQUIRED_KEYS if k not in payload]
    if missing:
        raise ValueError(f"checkpoint payload lacks {missing}")
    path = Path(path)
    payload = compact_tensors({"format": CHECKPOINT_FORMAT, "version": CHECKPOINT_VERSION, **payload})
    payload[DIGEST_KEY] = tensor_digest(payload)
    with atomic_write(path) as f:
        torch.save(payload, f)
    return path


def load_checkpoint(path: str | os.PathLike, game=None) -> dict:
    """Read and check a checkpoint; raise :class:`CheckpointError` if it is not
    a readable vint-env PPO checkpoint, or (with ``game``) was trained on
    another game or for another observation / action size than ``game`` has now
    (``game``: its record, or its name as the env, ``"vint_v0"``, or as the harness names it, ``"vint"``)."""
    path = Path(path)
    try:                    # a regular file: /dev/zero or a FIFO is refused by name, not read
        check_regular_file(path, "checkpoint")
    except FileNotFoundError:
        raise CheckpointError(f"checkpoint {str(path)!r} does not exist") from None
    except (InputFileError, OSError) as e:
        raise CheckpointError(f"{e.strerror if isinstance(e, OSError) and e.strerror else e}") from None
    check_archive(path, f"checkpoint {str(path)!r}")      # nothing inflates beyond the file's size
    try:
        ckpt = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # torch raises several types for damaged files
        raise CheckpointError(f"checkpoint {str(path)!r} is corrupt or not a torch file: "
                              f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}") from None
    if not isinstance(ckpt, dict) or ckpt.get("format") != CHECKPOINT_FORMAT:
        raise CheckpointError(f"{str(path)!r} is not a vint-env PPO checkpoint (no format tag {CHECKPOINT_FORMAT!r})")
    # Before anything reads a tensor's elements (the digest below, the finiteness and fit checks of
    # network_from_checkpoint, a resume): each tensor is stored in full, no view claiming more than it holds.
    check_stored_tensors(ckpt, f"checkpoint {str(path)!r}")
    if ckpt.get("version") != CHECKPOINT_VERSION:
        raise CheckpointError(f"checkpoint {str(path)!r} has format version {ckpt.get('version')!r}; "
                              f"this vint-env reads version {CHECKPOINT_VERSION}")
    missing = [k for k in REQUIRED_KEYS if k not in ckpt]
    if missing:
        raise CheckpointError(f"checkpoint {str(path)!r} lacks {missing}")
    # Checkpoints written before the digest existed have none: they load unchecked (the shipped
    # baselines are checked by their manifest's file SHA-256 instead); saving one again adds it.
    if DIGEST_KEY in ckpt and ckpt[DIGEST_KEY] != tensor_digest(ckpt):
        raise CheckpointError(f"checkpoint {str(path)!r} is damaged: its tensors do not match the SHA-256 "
                              f"stored with them (a changed or corrupted byte)")
    if game is not None:
        from ... import games
        record = games.get(game)
        game = record.env_name
        if game != ckpt["game"]:
            raise CheckpointError(f"checkpoint {str(path)!r} was trained on {ckpt['game']!r}, not {game!r}")
        obs_size, num_actions = record.observation_size, record.num_actions
        if (obs_size, num_actions) != (ckpt["obs_size"], ckpt["num_actions"]):
            raise CheckpointError(
                f"checkpoint {str(path)!r} expects observations of size {ckpt['obs_size']} and "
                f"{ckpt['num_actions']} actions, but {game} now has {obs_size} and {num_actions}")
    return ckpt


def network_from_checkpoint(ckpt: dict, path: str = "checkpoint") -> torch.nn.Module:
    """Rebuild the network stored in a checkpoint dict, with its weights.

    The description is checked before anything is built: ``network.name`` must
    be one of the package's networks (:data:`~vint_env.agents.learned.networks.NETWORKS`;
    a checkpoint never names a module to import), and the network its
    ``network.kwargs`` describe is first laid out on PyTorch's ``meta`` device
    (no memory) and its parameter names, shapes and dtypes compared with the stored
    weights, so a file claiming a huge network is refused without allocating it.
    Only then are the weights read (finite values, then loaded); each weight was
    first checked to be stored in full (:mod:`.stored_tensors`), so no view claims
    more elements than the file holds.  Any problem is a :class:`CheckpointError`.
    """
    from .networks import NETWORKS
    spec = ckpt["network"]
    if not isinstance(spec, dict) or not isinstance(spec.get("name"), str):
        raise CheckpointError(f"{path}: 'network' must be a dict with a 'name', got {spec!r}")
    name, kwargs = spec["name"], spec.get("kwargs") or {}
    if name not in NETWORKS:
        raise CheckpointError(f"{path}: unknown network {name!r}; a checkpoint may name only the package's "
                              f"networks: {sorted(NETWORKS)}")
    if not isinstance(kwargs, dict):
        raise CheckpointError(f"{path}: network kwargs must be a dict, got {kwargs!r}")
    sizes = (ckpt["obs_size"], ckpt["num_actions"])
    if any(isinstance(n, bool) or not isinstance(n, int) or n < 1 for n in sizes):
        raise CheckpointError(f"{path}: obs_size and num_actions must be positive integers, got {sizes}")
    weights = ckpt["model"]
    if not isinstance(weights, dict) or not all(isinstance(v, torch.Tensor) for v in weights.values()):
        raise CheckpointError(f"{path}: 'model' must be a dict of weight tensors")
    check_stored_tensors(weights, f"{path}: model")      # a dict not read by load_checkpoint too
    try:
        with torch.device("meta"):
            shell = build_network(name, *sizes, kwargs)
    except Exception as e:   # the network's own checks of its kwargs
        raise CheckpointError(f"{path}: network {name!r} rejects its kwargs {kwargs!r}: {e}") from None
    upgrade = getattr(shell, "upgrade_weights", None)      # an older layout of the same network
    if upgrade is not None:
        try:
            weights = upgrade(dict(weights))
        except Exception as e:   # the older layout's pieces do not fit together
            raise CheckpointError(f"{path}: weights in the older layout of network {name!r} do not fit "
                                  f"together: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}") from None
    # Names, shapes and dtypes against the network the file declares, before any element is read.
    expected = {k: (tuple(v.shape), v.dtype) for k, v in shell.state_dict().items()}
    stored = {k: (tuple(v.shape), v.dtype) for k, v in weights.items()}
    if expected != stored:
        diff = sorted((k for k in expected.keys() | stored.keys() if expected.get(k) != stored.get(k)), key=str)
        raise CheckpointError(f"{path}: weights do not fit network {name!r} with kwargs {kwargs!r}: "
                              + "; ".join(_misfit(k, expected.get(k), stored.get(k)) for k in diff[:4]))
    bad = [k for k, v in weights.items() if v.is_floating_point() and not bool(torch.isfinite(v).all())]
    if bad:
        raise CheckpointError(f"{path}: weights hold NaN or infinite values ({', '.join(bad[:4])}"
                              + (f" and {len(bad) - 4} more" if len(bad) > 4 else "") + "); a policy cannot act on them")
    net = build_network(name, *sizes, kwargs)
    try:
        net.load_state_dict(weights)
    except RuntimeError as e:
        raise CheckpointError(f"{path}: weights do not fit network {name!r}: "
                              f"{str(e).splitlines()[0]}") from None
    net.eval()
    return net


def _misfit(key, expected, stored) -> str:
    """How weight ``key`` of the network (``(shape, dtype)`` or None) differs from the file's."""
    if expected is None or stored is None or expected[0] != stored[0]:
        return f"{key}: network {expected and expected[0]}, file {stored and stored[0]}"
    return f"{key}: network dtype {expected[1]}, file {stored[1]}"


class PPOAgent(Agent):
    """A policy network acting as an :class:`Agent`.

    ``greedy=True`` (default) plays the most probable legal action, so
    evaluations are reproducible; ``greedy=False`` samples from the masked
    policy with its own seeded generator.
    """

    name = "network"

    def __init__(self, network: torch.nn.Module, game: str, obs_size: int, num_actions: int,
                 greedy: bool = True, seed: int | None = None, name: str | None = None):
        self.network = network.eval()
        self.game = game
        self.obs_size = obs_size
        self.num_actions = num_actions
        self.greedy = greedy
        self.generator = torch.Generator()
        self.generator.manual_seed(seed if seed is not None else 0)
        if name is not None:
            self.name = name

    @classmethod
    def load(cls, path: str | os.PathLike, game=None, greedy: bool = True,
             seed: int | None = None) -> PPOAgent:
        """The agent stored in checkpoint ``path``; with ``game``, refuse a
        checkpoint of another game or observation size (:class:`CheckpointError`).  ``game``: its
        record (:class:`vint_env.games.Game`) or its name, ``"vint"`` or ``"vint_v0"``."""
        from ... import games
        record = None if game is None else games.get(game)
        ckpt = load_checkpoint(path, game=record)
        if ckpt.get("bidder") is not None:     # its network's outputs are call values, not a policy
            raise CheckpointError(f"{str(path)!r} is a bidder checkpoint: load it with bidder:{path}")
        net = network_from_checkpoint(ckpt, str(path))
        agent = cls(net, ckpt["game"], ckpt["obs_size"], ckpt["num_actions"], greedy=greedy, seed=seed,
                    name=f"network:{path}")
        if ckpt.get("residual") is None:
            return agent
        from .residual import ResidualAgent, check_residual
        try:
            spec = check_residual(ckpt["residual"], repr(str(path)))
        except ValueError as e:
            raise CheckpointError(str(e)) from None
        if record is None:
            record = games.get(ckpt["game"])            # the game the checkpoint names
        base = record.rule_agent()     # the only base (residual.BASES): the game's rule bot
        return ResidualAgent(agent, base, spec["margin"], spec["actions"], name=f"network:{path}")

    @classmethod
    def from_network(cls, network: torch.nn.Module, game, name: str = "network", greedy: bool = True,
                     seed: int | None = None) -> PPOAgent:
        """An agent of a frozen copy of ``network`` (a policy network of ``game``: its record or name), held
        in memory: a copy on the CPU in eval mode, so later training of ``network`` (on any device) does not
        change it.  It plays exactly as the same weights saved and loaded from their checkpoint
        (:meth:`load`); a match (:func:`~vint_env.evaluation.match.run_match`) pickles it to each seat and
        worker, and names it by ``name``."""
        import copy

        from ... import games
        record = games.get(game)
        frozen = copy.deepcopy(network).to("cpu").eval()
        for p in frozen.parameters():
            p.requires_grad_(False)
        return cls(frozen, record.env_name, record.observation_size, record.num_actions, greedy=greedy,
                   seed=seed, name=name)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None and not self.greedy:
            self.generator.manual_seed(seed)

    @torch.no_grad()
    def act_batch(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Actions for a batch of observations ``[B, D]`` and masks ``[B, A]``."""
        obs_t = torch.as_tensor(np.asarray(obs, dtype=np.float32))
        if obs_t.ndim != 2 or obs_t.shape[1] != self.obs_size:
            raise ValueError(f"{self.name}: expected observations of size {self.obs_size} "
                             f"(trained on {self.game}), got shape {tuple(obs_t.shape)}")
        logits, _ = self.network(obs_t)
        # Whatever the network computes (NaN, +-inf from an overflow), a masked action is never chosen:
        # non-finite logits become the lowest finite ones, so a row of them plays uniformly among the legal.
        logits = torch.nan_to_num(logits.float(), nan=-1e30, posinf=1e30, neginf=-1e30)
        mask = torch.as_tensor(np.asarray(masks)).bool()
        dist = MaskedCategorical(logits, mask)
        actions = dist.mode() if self.greedy else dist.sample(self.generator)
        return actions.numpy()

    def act(self, observation: dict, env=None, agent: str | None = None) -> int:
        legal_actions(observation)  # a clear error for an all-zero mask
        return int(self.act_batch(observation["observation"][None], observation["action_mask"][None])[0])
