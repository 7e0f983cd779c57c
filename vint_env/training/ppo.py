"""Masked PPO with self-play, in the spirit of CleanRL's ``ppo.py``.

Read top to bottom: :func:`compute_gae` (advantages per seat trajectory),
:func:`ppo_update` (clipped objective, optional value clipping, entropy
bonus, gradient clipping), and :class:`Trainer`, whose :meth:`Trainer.train`
loop is: collect a rollout from a batch of games (``selfplay.py``), compute
advantages, update, log, evaluate, checkpoint.  The other jobs live in modules
of their own: the imitation warm start (``warm_start.py``), the opponent pool
(``pool.py``), when to evaluate (``eval_schedule.py``) and the checkpoints
(``checkpoints.py``).

Reproducibility: everything random in update ``u`` comes from generators
seeded with ``(seed, u)``, and a checkpoint holds the network, the optimizer,
the opponent pool and the counters, so ``--resume`` continues exactly as an
uninterrupted run would.
"""

from __future__ import annotations

import contextlib
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

from vint_env.agents.learned.networks import MaskedCategorical, build_network

from . import eval_schedule, warm_start
from .checkpoints import TrainState, policy_payload, read_resumable, write_checkpoints
from .config import PPOConfig
from .critic import CentralCritic
from .eval_schedule import margins
from .evaluation import harness_game
from .imitation import kl_to_reference
from .pool import OpponentPool
from .schedule import budget_fraction, budget_spent, linear
from .selfplay import Rollout, SelfPlayCollector, default_bot_factory
from .shaping import RewardShaper
from .sources import make_game_batch
from .streams import seeded


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
    clip_coef = cfg.ppo.clip_coef if clip_coef is None else clip_coef
    ent_coef = cfg.ppo.ent_coef if ent_coef is None else ent_coef
    b_adv = torch.as_tensor(advantages, dtype=torch.float32)
    b_ret = torch.as_tensor(returns, dtype=torch.float32)
    b_val = rollout.values
    n = len(rollout)
    clipfracs, approx_kls, kl_refs = [], [], []
    for _epoch in range(cfg.ppo.update_epochs):
        epoch_kls = []
        for mb_np in np.array_split(rng.permutation(n), min(cfg.ppo.num_minibatches, n)):
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
            if cfg.ppo.norm_adv and len(mb) > 1:
                mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)

            # Clipped policy objective
            pg_loss = torch.max(-mb_adv * ratio,
                                -mb_adv * torch.clamp(ratio, 1 - clip_coef, 1 + clip_coef)).mean()

            # Value loss, optionally clipped around the rollout's values
            if cfg.ppo.clip_vloss:
                v_clipped = b_val[mb] + torch.clamp(new_value - b_val[mb], -clip_coef, clip_coef)
                v_loss = 0.5 * torch.max((new_value - b_ret[mb]) ** 2, (v_clipped - b_ret[mb]) ** 2).mean()
            else:
                v_loss = 0.5 * ((new_value - b_ret[mb]) ** 2).mean()

            entropy_loss = entropy.mean()
            loss = pg_loss - ent_coef * entropy_loss + cfg.ppo.vf_coef * v_loss
            if ref_logits is not None and kl_coef > 0:
                kl_ref = kl_to_reference(ref_logits[mb], logits, rollout.masks[mb]).mean()
                loss = loss + kl_coef * kl_ref
                kl_refs.append(kl_ref.item())

            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_([p for group in optimizer.param_groups for p in group["params"]],
                                     cfg.ppo.max_grad_norm)
            optimizer.step()
        approx_kls += epoch_kls
        if cfg.ppo.target_kl > 0 and np.mean(epoch_kls) > cfg.ppo.target_kl:
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
        torch.set_num_threads(cfg.run.torch_threads)   # also makes float results repeatable across resumes
        torch.manual_seed(cfg.run.seed)
        self.batch = make_game_batch(cfg.collection.env_source, cfg.run.game, cfg.collection.num_envs, cfg.run.env_kwargs,
                                     RewardShaper(cfg.shaping.shaping_trick_reward, cfg.shaping.shaping_exclude_items,
                                                  cfg.shaping.shaping_deal_transform, cfg.shaping.shaping_deal_scale))
        self.obs_size, self.num_actions = self.batch.obs_size, self.batch.num_actions
        self.net = build_network(cfg.model.network, self.obs_size, self.num_actions, cfg.model.network_kwargs)
        self.critic: nn.Module | None = None
        params = list(self.net.parameters())
        if cfg.model.central_critic:
            if not hasattr(self.batch, "states") or self.batch.state_size is None:
                raise ValueError(f"central_critic needs the games' state() (env_source 'aec' with an env that has "
                                 f"state_space), not env_source {cfg.collection.env_source!r}")
            self.critic = CentralCritic(self.batch.state_size, cfg.model.critic_hidden_sizes)
            params += list(self.critic.parameters())
        try:
            self.optimizer = torch.optim.Adam(params, lr=cfg.ppo.learning_rate, eps=1e-5,
                                              **({"fused": True} if cfg.ppo.fused_adam else {}))
        except (RuntimeError, TypeError) as e:
            raise ValueError(f"fused_adam: this torch ({torch.__version__}) has no fused Adam on CPU ({e}); "
                             f"set fused_adam: false") from None
        self.pool = OpponentPool(cfg.opponents.pool_size)
        make_bot = make_bot or default_bot_factory(cfg.run.game)
        for kind in ("random", "rule"):
            if cfg.opponents.opponent_mix.get(kind, 0) > 0:
                make_bot(kind)   # fail now, not in the middle of a rollout, if a bot is missing
        self.collector = SelfPlayCollector(self.batch, cfg.opponents.opponent_mix, cfg.collection.num_steps, make_bot, cfg.collection.duplicate)
        if cfg.teacher_data.teacher:
            from vint_env.agents.registry import load_agent
            load_agent(cfg.teacher_data.teacher, game=harness_game(cfg.run.game))   # a bad teacher spec fails now
        self.reference: nn.Module | None = None   # the frozen clone of the teacher (kl_coef > 0)
        self.say = say or (lambda msg: None)       # progress notes (teacher data, behaviour cloning)
        self.state = TrainState()
        self.evaluate = evaluate
        self.logger = logger
        self.last_eval: dict = {}
        self.behaviour: dict | None = None   # with collectors: {"model", "pool"} that play the next rollout

    @property
    def pool_weights(self) -> list[dict]:
        """The opponent pool's snapshots (state_dicts), oldest first."""
        return self.pool.weights

    # -- checkpoints (checkpoints.py) -----------------------------------------
    def checkpoint_payload(self) -> dict:
        import dataclasses
        return {
            **policy_payload(self.cfg, self.obs_size, self.num_actions, self.net.state_dict()),
            "trainer": {
                **dataclasses.asdict(self.state),
                "optimizer": self.optimizer.state_dict(),
                "pool": self.pool.state(),
                "reference": None if self.reference is None else self.reference.state_dict(),
                "critic": None if self.critic is None else self.critic.state_dict(),
                "behaviour": self.behaviour,
                "last_eval": self.last_eval,
            },
        }

    def save(self) -> Path:
        """Write ``checkpoints/update_NNNNNN.pt`` and ``checkpoints/latest.pt`` (both atomically)."""
        return write_checkpoints(self.ckpt_dir, self.state.update, self.checkpoint_payload(),
                                 self.cfg.checkpoints.keep_checkpoints)

    def restore(self, path: str | Path) -> None:
        """Continue from a checkpoint of this same run (same config)."""
        ckpt = read_resumable(path, self.cfg)
        self.net.load_state_dict(ckpt["model"])
        t = ckpt["trainer"]
        self.optimizer.load_state_dict(t["optimizer"])
        self.pool.load(t["pool"])
        self.state = TrainState.from_checkpoint(t)
        if self.critic is not None:
            self.critic.load_state_dict(t["critic"])
        if t.get("reference") is not None:
            self.reference = warm_start.frozen_copy(self.net)
            self.reference.load_state_dict(t["reference"])
        self.last_eval = dict(t.get("last_eval") or {})
        self.behaviour = t.get("behaviour")

    # -- the other jobs, in their modules ---------------------------------------
    def pretrain(self, seconds=None) -> list[dict]:
        """The imitation warm start (``warm_start.pretrain``)."""
        return warm_start.pretrain(self, seconds)

    def kl_coef_now(self, frac: float) -> float:
        return warm_start.kl_coef_at(self.cfg, frac)

    def run_evaluation(self, deals: int, final: bool = False) -> dict:
        """Play, log and return an evaluation of the current weights (``eval_schedule.run_evaluation``)."""
        return eval_schedule.run_evaluation(self, deals, final)

    def evaluate_before_cloning(self, deals: int) -> dict:
        return eval_schedule.evaluate_before_cloning(self, deals)

    # -- one update -----------------------------------------------------------
    def budget_fraction(self) -> float:
        """Share of the run's budget used so far (``vint_env/training/schedule.py``)."""
        cfg, st = self.cfg, self.state
        return budget_fraction(st.global_step, cfg.run.total_timesteps, st.train_seconds, cfg.run.max_minutes)

    def budget_spent(self) -> bool:
        cfg, st = self.cfg, self.state
        return budget_spent(st.global_step, cfg.run.total_timesteps, st.train_seconds, cfg.run.max_minutes)

    def coefficients(self) -> dict:
        """This update's learning rate, clip and entropy coefficients, annealed by the budget used."""
        cfg = self.cfg
        frac = self.budget_fraction()
        return {
            "budget_fraction": frac,
            "learning_rate": linear(cfg.ppo.learning_rate, 0.0, frac) if cfg.ppo.anneal_lr else cfg.ppo.learning_rate,
            "clip_coef": cfg.ppo.clip_coef if cfg.ppo.clip_coef_final is None else linear(cfg.ppo.clip_coef,
                                                                                   cfg.ppo.clip_coef_final, frac),
            "ent_coef": cfg.ppo.ent_coef if cfg.ppo.ent_coef_final is None else linear(cfg.ppo.ent_coef,
                                                                                cfg.ppo.ent_coef_final, frac),
            **({"kl_coef": self.kl_coef_now(frac)} if self.reference is not None else {}),
        }

    def collect(self, rng: np.random.Generator, gen: torch.Generator) -> Rollout:
        """One rollout of the current policy and the pool (eval mode, no gradient)."""
        self.net.eval()
        if self.critic is not None:
            self.critic.eval()
        return self.collector.collect(self.net, self.pool.modules(self.net), rng, gen, critic=self.critic)

    def learn(self, rollout: Rollout, coefs: dict, rng: np.random.Generator) -> dict:
        """Advantages of ``rollout`` and the PPO update on it; the loss figures."""
        cfg = self.cfg
        advantages, returns = compute_gae(rollout.rewards, rollout.values.numpy().astype(np.float64),
                                          rollout.dones, rollout.next_index, cfg.ppo.gamma, cfg.ppo.gae_lambda)
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
        return losses

    def update_once(self) -> dict:
        cfg, st = self.cfg, self.state
        coefs = self.coefficients()
        self.optimizer.param_groups[0]["lr"] = coefs["learning_rate"]
        rng, gen = seeded(cfg.run.seed, st.update, 0)
        t0 = time.perf_counter()
        rollout = self.collect(rng, gen)
        t1 = time.perf_counter()
        losses = self.learn(rollout, coefs, rng)
        t2 = time.perf_counter()
        return self.account(rollout, {**coefs, **losses}, collect_seconds=t1 - t0, update_seconds=t2 - t1)

    def account(self, rollout: Rollout, scalars: dict, collect_seconds: float, update_seconds: float,
                wall_seconds: float | None = None) -> dict:
        """Count an update done on ``rollout`` (and snapshot into the pool when due); its scalars."""
        st = self.state
        st.update += 1
        st.global_step += rollout.env_steps
        st.samples += len(rollout)
        if st.update % self.cfg.opponents.pool_add_every == 0:
            self.pool.add(self.net)
        wall = collect_seconds + update_seconds if wall_seconds is None else wall_seconds
        variance = {}
        if rollout.side_returns is not None and len(rollout.side_returns) > 1:
            from .duplicate import variance_figures
            figures = variance_figures(rollout.side_returns)
            variance = {"return_var": figures["return_var"],
                        **({"paired_return_var": figures["paired_return_var"]} if self.cfg.collection.duplicate else {})}
        return {
            **scalars,
            **rollout.stats,
            **variance,
            "rollout_env_steps": rollout.env_steps,
            "rollout_samples": len(rollout),
            "env_steps_per_s": rollout.env_steps / collect_seconds,       # collection only
            "samples_per_s": len(rollout) / wall,                         # learner samples / wall time
            "update_seconds": update_seconds,
        }

    # -- the loop -------------------------------------------------------------
    def train(self, progress=None) -> dict:
        """Run updates until ``total_timesteps`` or ``max_minutes``; returns the final evaluation.

        A resumed run first plays the evaluation it was killed in (if any); a run resumed with no
        budget left and its final evaluation logged does nothing (``already_finished`` in the result)."""
        cfg, st = self.cfg, self.state
        session_start = time.perf_counter()
        base_seconds = st.train_seconds

        def seconds() -> float:
            return base_seconds + time.perf_counter() - session_start

        if st.pending_eval_deals:
            self.run_evaluation(st.pending_eval_deals, final=st.pending_eval_final)
        if cfg.init.init_from and not st.pretrained and st.update == 0:
            warm_start.init_from(self)
        if warm_start.wanted(cfg, st):
            if cfg.evaluation.eval_every and not st.evaluated_before_cloning:   # the curves start before cloning
                self.evaluate_before_cloning(cfg.evaluation.eval_deals)
                st.train_seconds = seconds()
            self.pretrain(seconds)
            st.train_seconds = seconds()   # teacher data and cloning are in the budget
            if cfg.evaluation.eval_every and self.evaluate is not None and not self.budget_spent():
                self.say(f"the clone: {margins(self.run_evaluation(cfg.evaluation.eval_deals))}")   # where PPO starts
        with contextlib.closing(self.updates()) as updates:   # closing stops the collectors, whatever happens
            self._loop(updates, seconds, progress)
        stopped_early = st.global_step < cfg.run.total_timesteps
        if st.final_eval_update == st.update:
            final = {**self.last_eval, "already_finished": True}
        else:
            final = self.run_evaluation(cfg.evaluation.final_eval_deals, final=True)
            self.save()
        final["stopped_early"] = stopped_early
        return final

    def _loop(self, updates, seconds, progress) -> None:
        """After each update: log, evaluate when due, report progress, checkpoint."""
        cfg, st = self.cfg, self.state
        for scalars in updates:
            st.train_seconds = seconds()
            scalars["elapsed_minutes"] = st.train_seconds / 60
            scalars["process_cpu_minutes"] = time.process_time() / 60   # this process, this session
            if self.logger is not None:
                self.logger.log(st.update, st.global_step, scalars)
            last = self.budget_spent()
            if not last and eval_schedule.due(cfg, st.update):
                scalars.update(self.run_evaluation(cfg.evaluation.eval_deals))
            if progress is not None:
                progress(st, scalars, self.last_eval)
            if last or st.update % cfg.checkpoints.checkpoint_every == 0:
                self.save()

    def updates(self):
        """The run's updates, one scalars dict each, until the budget is spent (the clock is the caller's:
        it sets ``state.train_seconds`` after each)."""
        if self.cfg.collection.collectors:
            yield from self.overlapped_updates()
            return
        while not self.budget_spent():
            yield self.update_once()

    def overlapped_updates(self):
        """Updates with collection beside them (``collectors.py``): while update ``u`` learns from rollout
        ``u``, the collectors play rollout ``u + 1`` with the weights from before the update."""
        from .collectors import gather, make_collectors
        cfg, st = self.cfg, self.state
        if self.budget_spent():
            return
        collectors = make_collectors(cfg)
        try:
            def behaviour() -> dict:
                return {"model": {k: v.detach().clone() for k, v in self.net.state_dict().items()},
                        "pool": list(self.pool.state())}
            if self.behaviour is None:
                self.behaviour = behaviour()
            pool_sent = None

            def request(update: int) -> None:   # the pool travels only when it changed
                nonlocal pool_sent
                pool = self.behaviour["pool"]
                fresh = pool_sent is None or len(pool) != len(pool_sent) or any(a is not b for a, b in
                                                                                zip(pool, pool_sent))
                collectors.request(update, self.behaviour["model"], pool if fresh else None)
                pool_sent = pool
            request(st.update)
            t_last = time.perf_counter()
            while not self.budget_spent():
                parts, collect_seconds = collectors.receive()
                rollout = gather(parts)
                self.behaviour = behaviour()     # plays rollout u + 1, collected during this update
                if st.global_step + rollout.env_steps < cfg.run.total_timesteps or cfg.run.max_minutes:
                    request(st.update + 1)
                coefs = self.coefficients()
                self.optimizer.param_groups[0]["lr"] = coefs["learning_rate"]
                rng, _ = seeded(cfg.run.seed, st.update, 1000)
                t1 = time.perf_counter()
                losses = self.learn(rollout, coefs, rng)
                t2 = time.perf_counter()
                yield self.account(rollout, {**coefs, **losses}, collect_seconds, t2 - t1, wall_seconds=t2 - t_last)
                t_last = time.perf_counter()
        finally:
            collectors.close()
