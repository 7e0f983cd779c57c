"""Masked PPO with self-play, in the spirit of CleanRL's ``ppo.py``.

Read top to bottom: :func:`compute_gae` (advantages per seat trajectory),
:func:`ppo_update` (clipped objective, optional value clipping, entropy
bonus, gradient clipping), and :class:`Trainer`, whose :meth:`Trainer.train`
loop is: collect a rollout from a batch of games (``selfplay.py``), compute
advantages, update, log, evaluate through the harness, checkpoint.

Reproducibility: everything random in update ``u`` comes from generators
seeded with ``(seed, u)``, and a checkpoint holds the network, the optimizer,
the opponent pool and the counters, so ``--resume`` continues exactly as an
uninterrupted run would.
"""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from torch import nn

from vint_env.agents.learned.networks import MaskedCategorical, build_network
from vint_env.agents.learned.policy import load_checkpoint, save_checkpoint
from vint_env.points import format_points

from .config import RESUME_OVERRIDABLE, PPOConfig, config_from_dict
from .critic import CentralCritic
from .evaluation import harness_game
from .imitation import behaviour_clone, kl_to_reference
from .schedule import budget_fraction, budget_spent, linear
from .selfplay import Rollout, SelfPlayCollector
from .shaping import RewardShaper
from .sources import make_game_batch


# --------------------------------------------------------------------------- GAE
def compute_gae(rewards: np.ndarray, values: np.ndarray, dones: np.ndarray, next_index: np.ndarray,
                gamma: float, gae_lambda: float) -> tuple[np.ndarray, np.ndarray]:
    """Generalised advantage estimates over interleaved seat trajectories.

    Transition ``k`` is followed (in its seat's trajectory) by transition
    ``next_index[k] > k``, or ends the trajectory (``dones[k]``: value 0 after
    it).  Returns ``(advantages, returns)`` with ``returns = advantages + values``.

    >>> adv, ret = compute_gae(np.array([0., 1.]), np.array([.5, .5]), np.array([False, True]),
    ...                        np.array([1, -1]), gamma=1.0, gae_lambda=1.0)
    >>> adv.tolist(), ret.tolist()
    ([0.5, 0.5], [1.0, 1.0])
    """
    n = len(rewards)
    adv = np.zeros(n, dtype=np.float64)
    for k in range(n - 1, -1, -1):
        if dones[k]:
            next_value, next_adv = 0.0, 0.0
        else:
            j = next_index[k]
            if j <= k:
                raise ValueError(f"transition {k} is not done but its successor is {j}")
            next_value, next_adv = values[j], adv[j]
        delta = rewards[k] + gamma * next_value - values[k]
        adv[k] = delta + gamma * gae_lambda * next_adv
    return adv, adv + values


# --------------------------------------------------------------------------- update
def ppo_update(net: nn.Module, optimizer: torch.optim.Optimizer, rollout: Rollout, advantages: np.ndarray,
               returns: np.ndarray, cfg: PPOConfig, rng: np.random.Generator, clip_coef: float | None = None,
               ent_coef: float | None = None, ref_logits: torch.Tensor | None = None, kl_coef: float = 0.0,
               critic: nn.Module | None = None) -> dict:
    """``update_epochs`` passes of minibatch PPO over the rollout; returns loss figures.

    ``clip_coef`` and ``ent_coef``: this update's values of the (possibly annealed) coefficients;
    the config's when not given.  ``critic``: a centralised critic giving the values (on the
    rollout's states) instead of the policy's value head.  ``ref_logits`` (the frozen reference
    policy's logits on the rollout's observations) with ``kl_coef > 0`` adds
    ``kl_coef * KL(reference || policy)`` to the loss."""
    clip_coef = cfg.clip_coef if clip_coef is None else clip_coef
    ent_coef = cfg.ent_coef if ent_coef is None else ent_coef
    b_adv = torch.as_tensor(advantages, dtype=torch.float32)
    b_ret = torch.as_tensor(returns, dtype=torch.float32)
    b_val = rollout.values
    n = len(rollout)
    clipfracs, approx_kls, kl_refs = [], [], []
    for _epoch in range(cfg.update_epochs):
        epoch_kls = []
        for mb_np in np.array_split(rng.permutation(n), min(cfg.num_minibatches, n)):
            mb = torch.from_numpy(mb_np)
            logits, new_value = net(rollout.obs[mb])
            if critic is not None:
                new_value = critic(rollout.states[mb], torch.from_numpy(rollout.seats[mb_np]))
            dist = MaskedCategorical(logits, rollout.masks[mb])
            new_logp = dist.log_prob(rollout.actions[mb])
            entropy = dist.entropy()
            log_ratio = new_logp - rollout.logprobs[mb]
            ratio = log_ratio.exp()
            with torch.no_grad():
                epoch_kls.append(((ratio - 1) - log_ratio).mean().item())
                clipfracs.append(((ratio - 1.0).abs() > clip_coef).float().mean().item())

            mb_adv = b_adv[mb]
            if cfg.norm_adv and len(mb) > 1:
                mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)

            # Clipped policy objective
            pg_loss = torch.max(-mb_adv * ratio,
                                -mb_adv * torch.clamp(ratio, 1 - clip_coef, 1 + clip_coef)).mean()

            # Value loss, optionally clipped around the rollout's values
            if cfg.clip_vloss:
                v_clipped = b_val[mb] + torch.clamp(new_value - b_val[mb], -clip_coef, clip_coef)
                v_loss = 0.5 * torch.max((new_value - b_ret[mb]) ** 2, (v_clipped - b_ret[mb]) ** 2).mean()
            else:
                v_loss = 0.5 * ((new_value - b_ret[mb]) ** 2).mean()

            entropy_loss = entropy.mean()
            loss = pg_loss - ent_coef * entropy_loss + cfg.vf_coef * v_loss
            if ref_logits is not None and kl_coef > 0:
                kl_ref = kl_to_reference(ref_logits[mb], logits, rollout.masks[mb]).mean()
                loss = loss + kl_coef * kl_ref
                kl_refs.append(kl_ref.item())

            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_([p for group in optimizer.param_groups for p in group["params"]],
                                     cfg.max_grad_norm)
            optimizer.step()
        approx_kls += epoch_kls
        if cfg.target_kl > 0 and np.mean(epoch_kls) > cfg.target_kl:
            break
    y_pred, y_true = rollout.values.numpy(), returns
    var_y = np.var(y_true)
    return {
        "policy_loss": pg_loss.item(),
        "value_loss": v_loss.item(),
        "entropy": entropy_loss.item(),
        "loss": loss.item(),
        "approx_kl": float(np.mean(approx_kls)),
        "clipfrac": float(np.mean(clipfracs)),
        "explained_variance": float("nan") if var_y == 0 else float(1 - np.var(y_true - y_pred) / var_y),
        **({"kl_to_teacher": float(np.mean(kl_refs))} if kl_refs else {}),
    }


# --------------------------------------------------------------------------- trainer
def _seeded(seed: int, update: int, stream: int) -> tuple[np.random.Generator, torch.Generator]:
    ss = np.random.SeedSequence([seed, update, stream])
    gen = torch.Generator()
    gen.manual_seed(int(ss.generate_state(1, dtype=np.uint64)[0] >> 1))
    return np.random.default_rng(ss), gen


def default_bot_factory(game: str):
    """``make_bot(kind)``: the scripted agent ``kind`` (``random``, ``rule``) from the agent registry."""
    from vint_env.agents.registry import load_agent

    def make_bot(kind: str):
        return load_agent(kind, game=harness_game(game))
    return make_bot


def margins(scalars: dict) -> str:
    """``vs random +11,141, vs rule -141,952 points a board`` from an evaluation's ``eval/...`` scalars."""
    opps = [k[len("eval/"):-len("/mean")] for k in scalars if k.startswith("eval/") and k.endswith("/mean")]
    return ", ".join(f"vs {o} {format_points(scalars[f'eval/{o}/mean'])}" for o in opps) + " points a board (duplicate)"


BEFORE_CLONING = "eval_before_cloning/"   # log prefix of the untrained network's evaluation (warm start)


@dataclass
class TrainState:
    """Counters that a checkpoint carries across ``--resume``."""

    update: int = 0            # updates done
    global_step: int = 0       # env steps taken
    samples: int = 0           # learner transitions trained on
    train_seconds: float = 0.0  # wall time spent in train() so far (all sessions)
    # An evaluation saves a checkpoint before it plays (the harness plays that file) and again after it
    # is logged; a checkpoint saved before carries the evaluation as pending, so a run killed while
    # evaluating plays it again on --resume instead of losing its row.
    pending_eval_deals: int = 0     # deals of the evaluation in progress at this checkpoint; 0 = none
    pending_eval_final: bool = False
    final_eval_update: int = -1     # the update whose final evaluation is logged; -1 = none yet
    pretrained: bool = False        # the imitation warm start is done
    evaluated_before_cloning: bool = False   # the untrained network's evaluation (warm start) is logged


class Trainer:
    """One PPO self-play run: network, optimizer, opponent pool, game batch, logs.

    ``evaluate(checkpoint_path, update, deals) -> dict`` is the evaluation hook
    (``vint_env/training/evaluation.py`` wires the harness in); ``logger`` receives
    every scalar (``vint_env/training/logs.py``).
    """

    def __init__(self, cfg: PPOConfig, run_dir: str | Path, evaluate=None, logger=None, make_bot=None, say=None):
        self.cfg = cfg
        self.run_dir = Path(run_dir)
        self.ckpt_dir = self.run_dir / "checkpoints"
        torch.set_num_threads(cfg.torch_threads)   # also makes float results repeatable across resumes
        torch.manual_seed(cfg.seed)
        self.batch = make_game_batch(cfg.env_source, cfg.game, cfg.num_envs, cfg.env_kwargs,
                                     RewardShaper(cfg.shaping_trick_reward, cfg.shaping_exclude_items,
                                                  cfg.shaping_deal_transform, cfg.shaping_deal_scale))
        self.obs_size, self.num_actions = self.batch.obs_size, self.batch.num_actions
        self.net = build_network(cfg.network, self.obs_size, self.num_actions, cfg.network_kwargs)
        self.critic: nn.Module | None = None
        params = list(self.net.parameters())
        if cfg.central_critic:
            if not hasattr(self.batch, "states") or self.batch.state_size is None:
                raise ValueError(f"central_critic needs the games' state() (env_source 'aec' with an env that has "
                                 f"state_space), not env_source {cfg.env_source!r}")
            self.critic = CentralCritic(self.batch.state_size, cfg.critic_hidden_sizes)
            params += list(self.critic.parameters())
        self.optimizer = torch.optim.Adam(params, lr=cfg.learning_rate, eps=1e-5)
        self.pool_weights: list[dict] = []     # state_dicts of past snapshots, oldest first
        self.pool_nets: list[nn.Module] = []
        make_bot = make_bot or default_bot_factory(cfg.game)
        for kind in ("random", "rule"):
            if cfg.opponent_mix.get(kind, 0) > 0:
                make_bot(kind)   # fail now, not in the middle of a rollout, if a bot is missing
        self.collector = SelfPlayCollector(self.batch, cfg.opponent_mix, cfg.num_steps, make_bot)
        if cfg.teacher:
            from vint_env.agents.registry import load_agent
            load_agent(cfg.teacher, game=harness_game(cfg.game))   # a bad teacher spec fails now
        self.reference: nn.Module | None = None   # the frozen clone of the teacher (kl_coef > 0)
        self.say = say or (lambda msg: None)       # progress notes (teacher data, behaviour cloning)
        self.state = TrainState()
        self.evaluate = evaluate
        self.logger = logger
        self.last_eval: dict = {}

    # -- checkpoints ----------------------------------------------------------
    def checkpoint_payload(self) -> dict:
        cfg = self.cfg
        return {
            "game": cfg.game,
            "env_kwargs": dict(cfg.env_kwargs),
            "obs_size": self.obs_size,
            "num_actions": self.num_actions,
            "network": {"name": cfg.network, "kwargs": dict(cfg.network_kwargs)},
            "model": self.net.state_dict(),
            "residual": ({"base": cfg.residual_base, "margin": float(cfg.residual_margin),
                          "actions": cfg.residual_actions}
                         if cfg.residual_base else None),
            "config": cfg.to_dict(),
            "trainer": {
                "optimizer": self.optimizer.state_dict(),
                "pool": self.pool_weights,
                "update": self.state.update,
                "global_step": self.state.global_step,
                "samples": self.state.samples,
                "train_seconds": self.state.train_seconds,
                "pending_eval_deals": self.state.pending_eval_deals,
                "pending_eval_final": self.state.pending_eval_final,
                "final_eval_update": self.state.final_eval_update,
                "pretrained": self.state.pretrained,
                "evaluated_before_cloning": self.state.evaluated_before_cloning,
                "reference": None if self.reference is None else self.reference.state_dict(),
                "critic": None if self.critic is None else self.critic.state_dict(),
                "last_eval": self.last_eval,
            },
        }

    def save(self) -> Path:
        """Write ``checkpoints/update_NNNNNN.pt`` and ``checkpoints/latest.pt`` (both atomically);
        remove temporary files left by a run killed in the middle of a write."""
        for stale in self.ckpt_dir.glob(".*.tmp"):
            stale.unlink(missing_ok=True)
        payload = self.checkpoint_payload()
        path = save_checkpoint(self.ckpt_dir / f"update_{self.state.update:06d}.pt", payload)
        save_checkpoint(self.ckpt_dir / "latest.pt", payload)
        keep = self.cfg.keep_checkpoints
        if keep > 0:
            for old in sorted(self.ckpt_dir.glob("update_*.pt"))[:-keep]:
                old.unlink(missing_ok=True)
        return path

    def restore(self, path: str | Path) -> None:
        """Continue from a checkpoint of this same run (same config)."""
        ckpt = load_checkpoint(path, game=self.cfg.game)
        if "trainer" not in ckpt:
            raise ValueError(f"{path} holds a policy only, no trainer state to resume from")
        saved, now = config_from_dict(ckpt["config"]).to_dict(), self.cfg.to_dict()
        diff = {k: (v, now[k]) for k, v in saved.items() if now[k] != v and k not in RESUME_OVERRIDABLE}
        if diff:
            raise ValueError(f"cannot resume {path}: config differs from the checkpoint's (checkpoint, now): {diff}")
        self.net.load_state_dict(ckpt["model"])
        t = ckpt["trainer"]
        self.optimizer.load_state_dict(t["optimizer"])
        self.pool_weights = list(t["pool"])
        self.state = TrainState(update=t["update"], global_step=t["global_step"], samples=t["samples"],
                                train_seconds=t["train_seconds"],
                                pending_eval_deals=int(t.get("pending_eval_deals", 0)),
                                pending_eval_final=bool(t.get("pending_eval_final", False)),
                                final_eval_update=int(t.get("final_eval_update", -1)),
                                pretrained=bool(t.get("pretrained", False)),
                                evaluated_before_cloning=bool(t.get("evaluated_before_cloning", False)))
        if self.critic is not None:
            self.critic.load_state_dict(t["critic"])
        if t.get("reference") is not None:
            self.reference = self._frozen_copy()
            self.reference.load_state_dict(t["reference"])
        self.last_eval = dict(t.get("last_eval") or {})

    # -- imitation warm start -------------------------------------------------
    def _frozen_copy(self) -> nn.Module:
        net = copy.deepcopy(self.net).eval()
        for p in net.parameters():
            p.requires_grad_(False)
        return net

    def pretrain(self, seconds=None) -> list[dict]:
        """Clone the teacher (``vint_env/training/imitation.py``) before the first update; keep the clone as the
        KL reference when ``kl_coef > 0``; log ``bc/...`` rows at update 0 (epoch 0: the network before
        cloning) and save a checkpoint.

        ``seconds()`` is the run's training time so far (teacher data included): cloning stops between
        two minibatches once it reaches ``max_minutes``, as the PPO updates would."""
        from .teacher_data import teacher_data
        cfg, st = self.cfg, self.state
        seconds = seconds or (lambda: st.train_seconds)
        t0 = time.perf_counter()
        data, _, cached = teacher_data(cfg.game, cfg.env_kwargs, cfg.teacher, cfg.seed, cfg.teacher_deals,
                                       cfg.teacher_workers,
                                       Path(cfg.runs_dir) / "teacher_cache" if cfg.teacher_cache else None,
                                       say=self.say, values=cfg.teacher_values)
        t1 = time.perf_counter()
        def stop() -> bool:   # the clock only: no env step is taken while cloning (total_timesteps may be 0)
            return cfg.max_minutes > 0 and seconds() >= 60.0 * cfg.max_minutes

        history = behaviour_clone(self.net, data, cfg.bc_epochs, cfg.bc_batch_size, cfg.bc_learning_rate,
                                  cfg.seed, value_coef=cfg.bc_value_coef, max_grad_norm=cfg.max_grad_norm,
                                  holdout=cfg.bc_holdout, say=self.say, value_scale=cfg.bc_value_scale,
                                  teacher_bonus=cfg.bc_teacher_bonus, value_unit=cfg.bc_value_unit,
                                  stop=stop, measure_start=True,
                                  margins=(cfg.residual_margin,) if cfg.residual_base else ())
        done = sum(h.get("epoch_done", 1.0) for h in history if h["epoch"] > 0)
        stopped = done < cfg.bc_epochs
        if stopped:
            self.say(f"behaviour cloning: stopped by the budget (max_minutes={cfg.max_minutes:g}) after {done:.2f} "
                     f"of {cfg.bc_epochs} epochs")
        if self.logger is not None:
            for h in history:
                self.logger.log(0, 0, {f"bc/{k}": v for k, v in h.items()})
            self.logger.log(0, 0, {"teacher/decisions": len(data), "teacher/seconds": t1 - t0,
                                   "teacher/cached": int(cached), "bc/total_seconds": time.perf_counter() - t1,
                                   "bc/epochs_done": done, "bc/stopped_by_budget": int(stopped)})
        if cfg.kl_coef > 0:
            self.reference = self._frozen_copy()
        st.pretrained = True
        self.save()
        return history

    def kl_coef_now(self, frac: float) -> float:
        """The KL-to-teacher weight at budget fraction ``frac``: ``kl_coef`` falling linearly to 0 at
        ``kl_decay``."""
        cfg = self.cfg
        return cfg.kl_coef * max(0.0, 1.0 - frac / cfg.kl_decay)

    # -- opponent pool --------------------------------------------------------
    def _pool_modules(self) -> list[nn.Module]:
        while len(self.pool_nets) < len(self.pool_weights):
            self.pool_nets.append(copy.deepcopy(self.net).eval())
        for net, weights in zip(self.pool_nets, self.pool_weights):
            net.load_state_dict(weights)
        return self.pool_nets[:len(self.pool_weights)]

    def _snapshot(self) -> None:
        self.pool_weights.append({k: v.detach().clone() for k, v in self.net.state_dict().items()})
        del self.pool_weights[:-self.cfg.pool_size]

    # -- one update -----------------------------------------------------------
    def budget_fraction(self) -> float:
        """Share of the run's budget used so far (``vint_env/training/schedule.py``)."""
        cfg, st = self.cfg, self.state
        return budget_fraction(st.global_step, cfg.total_timesteps, st.train_seconds, cfg.max_minutes)

    def budget_spent(self) -> bool:
        cfg, st = self.cfg, self.state
        return budget_spent(st.global_step, cfg.total_timesteps, st.train_seconds, cfg.max_minutes)

    def coefficients(self) -> dict:
        """This update's learning rate, clip and entropy coefficients, annealed by the budget used."""
        cfg = self.cfg
        frac = self.budget_fraction()
        return {
            "budget_fraction": frac,
            "learning_rate": linear(cfg.learning_rate, 0.0, frac) if cfg.anneal_lr else cfg.learning_rate,
            "clip_coef": cfg.clip_coef if cfg.clip_coef_final is None else linear(cfg.clip_coef,
                                                                                   cfg.clip_coef_final, frac),
            "ent_coef": cfg.ent_coef if cfg.ent_coef_final is None else linear(cfg.ent_coef,
                                                                                cfg.ent_coef_final, frac),
            **({"kl_coef": self.kl_coef_now(frac)} if self.reference is not None else {}),
        }

    def update_once(self) -> dict:
        cfg, st = self.cfg, self.state
        coefs = self.coefficients()
        self.optimizer.param_groups[0]["lr"] = coefs["learning_rate"]
        rng, gen = _seeded(cfg.seed, st.update, 0)

        t0 = time.perf_counter()
        self.net.eval()
        if self.critic is not None:
            self.critic.eval()
        rollout = self.collector.collect(self.net, self._pool_modules(), rng, gen, critic=self.critic)
        t1 = time.perf_counter()

        advantages, returns = compute_gae(rollout.rewards, rollout.values.numpy().astype(np.float64),
                                          rollout.dones, rollout.next_index, cfg.gamma, cfg.gae_lambda)
        ref_logits = None
        if self.reference is not None and coefs["kl_coef"] > 0:
            with torch.no_grad():
                ref_logits = self.reference(rollout.obs)[0]
        self.net.train()
        if self.critic is not None:
            self.critic.train()
        losses = ppo_update(self.net, self.optimizer, rollout, advantages, returns, cfg, rng,
                            clip_coef=coefs["clip_coef"], ent_coef=coefs["ent_coef"], ref_logits=ref_logits,
                            kl_coef=coefs.get("kl_coef", 0.0), critic=self.critic)
        self.net.eval()
        t2 = time.perf_counter()

        st.update += 1
        st.global_step += rollout.env_steps
        st.samples += len(rollout)
        if st.update % cfg.pool_add_every == 0:
            self._snapshot()
        return {
            **coefs,
            **losses,
            **rollout.stats,
            "rollout_env_steps": rollout.env_steps,
            "rollout_samples": len(rollout),
            "env_steps_per_s": rollout.env_steps / (t1 - t0),            # collection only
            "samples_per_s": len(rollout) / (t2 - t0),                   # collection + update
            "update_seconds": t2 - t1,
        }

    # -- the loop -------------------------------------------------------------
    def run_evaluation(self, deals: int, final: bool = False) -> dict:
        """Have ``evaluate`` play the current weights; log and return its scalars.

        The checkpoint saved before playing (the file the harness loads) marks the evaluation
        pending, the one saved after it is logged clears that, so ``--resume`` after a kill in
        between plays it again (:meth:`train`) and its row is neither lost nor doubled."""
        st = self.state
        if self.evaluate is None:
            if final:
                st.final_eval_update = st.update
            return {}
        st.pending_eval_deals, st.pending_eval_final = deals, final
        path = self.save()
        if self.logger is not None and hasattr(self.logger, "drop_rows"):
            # a row of this very evaluation, logged by a run killed before its checkpoint: replaced
            self.logger.drop_rows(st.update, prefix="eval/")
        scalars = self.evaluate(path, st.update, deals)
        self.last_eval = dict(scalars)
        if self.logger is not None:
            self.logger.log(st.update, st.global_step, scalars)
        st.pending_eval_deals, st.pending_eval_final = 0, False
        if final:
            st.final_eval_update = st.update
        self.save()
        return scalars

    def evaluate_before_cloning(self, deals: int) -> dict:
        """Evaluate the untrained network before the warm start clones the teacher, logged at update 0 as
        ``eval_before_cloning/<opponent>/...``: where the learning curves start.

        The checkpoint saved first leaves this evaluation undone, so a run killed while it plays does it
        again on ``--resume`` (its row is dropped and logged again); the harness plays a copy of the
        weights in ``checkpoints/before_cloning.pt``, removed afterwards."""
        st = self.state
        if self.evaluate is None:
            return {}
        self.save()
        path = save_checkpoint(self.ckpt_dir / "before_cloning.pt", self.checkpoint_payload())
        if self.logger is not None and hasattr(self.logger, "drop_rows"):
            self.logger.drop_rows(0, prefix=BEFORE_CLONING)
        self.say(f"evaluating the untrained network ({deals} boards per opponent) ...")
        found = self.evaluate(path, 0, deals)
        self.say(f"the untrained network: {margins(found)}")
        scalars = {BEFORE_CLONING + k.removeprefix("eval/"): v for k, v in found.items()}
        path.unlink(missing_ok=True)
        if self.logger is not None:
            self.logger.log(0, 0, scalars)
        st.evaluated_before_cloning = True
        self.save()
        return scalars

    def train(self, progress=None) -> dict:
        """Run updates until ``total_timesteps`` or ``max_minutes``; returns the final evaluation.

        A resumed run first plays the evaluation it was killed in (if any); a run resumed with no
        budget left and its final evaluation logged does nothing (``already_finished`` in the result)."""
        cfg, st = self.cfg, self.state
        session_start = time.perf_counter()
        base_seconds = st.train_seconds
        if st.pending_eval_deals:
            self.run_evaluation(st.pending_eval_deals, final=st.pending_eval_final)
        def seconds() -> float:
            return base_seconds + time.perf_counter() - session_start

        if cfg.teacher and cfg.bc_epochs > 0 and not st.pretrained and st.update == 0:
            if cfg.eval_every and not st.evaluated_before_cloning:   # the curves start before cloning
                self.evaluate_before_cloning(cfg.eval_deals)
                st.train_seconds = seconds()
            self.pretrain(seconds)
            st.train_seconds = seconds()   # teacher data and cloning are in the budget
            if cfg.eval_every and self.evaluate is not None and not self.budget_spent():
                self.say(f"the clone: {margins(self.run_evaluation(cfg.eval_deals))}")   # where PPO starts
        while not self.budget_spent():
            scalars = self.update_once()
            st.train_seconds = base_seconds + time.perf_counter() - session_start
            scalars["elapsed_minutes"] = st.train_seconds / 60
            scalars["process_cpu_minutes"] = time.process_time() / 60   # this process, this session
            if self.logger is not None:
                self.logger.log(st.update, st.global_step, scalars)
            last = self.budget_spent()
            if not last and cfg.eval_every and st.update % cfg.eval_every == 0:
                scalars.update(self.run_evaluation(cfg.eval_deals))
            if progress is not None:
                progress(st, scalars, self.last_eval)
            if last or st.update % cfg.checkpoint_every == 0:
                self.save()
        stopped_early = st.global_step < cfg.total_timesteps
        if st.final_eval_update == st.update:
            final = {**self.last_eval, "already_finished": True}
        else:
            final = self.run_evaluation(cfg.final_eval_deals, final=True)
            self.save()
        final["stopped_early"] = stopped_early
        return final
