"""The run loop around the PPO iterations: :class:`Trainer`.

A run holds a network, its optimizer, the opponent pool and a batch of games, and repeats PPO
iterations (``ppo.py``) until its budget (``total_timesteps``, ``max_minutes``) is spent; around them it
does the run's other jobs, each a function of its own module that takes what it needs and returns a
value the trainer applies: the warm start (``warm_start.py``), evaluation (``eval_schedule.py``), the
budget (``schedule.py``) and checkpoints (``checkpoints.py``).

Reproducibility: everything random in update ``u`` comes from generators seeded with ``(seed, u)``
(``streams.py``), and a checkpoint holds the network, the optimizer, the opponent pool and the
counters, so ``--resume`` continues exactly as an uninterrupted run would.
"""

from __future__ import annotations

import contextlib
import time
from pathlib import Path

import torch
from torch import nn

from vint_env import games
from vint_env.agents.learned.networks import build_network
from vint_env.agents.learned.policy import PPOAgent

from . import eval_schedule, ppo, warm_start
from .checkpoints import TrainState, policy_payload, read_resumable, run_payload, write_checkpoints
from .config import PPOConfig
from .critic import CentralCritic
from .device import resolve_device
from .eval_schedule import margins
from .logs import FINAL_EVALUATION
from .pool import OpponentPool
from .progress import Quiet
from .schedule import budget_fraction, budget_spent
from .seating import BOT_KINDS, default_bot_factory
from .selfplay import Rollout, SelfPlayCollector
from .shaping import RewardShaper
from .sources import make_game_batch
from .streams import seeded


class Trainer:
    """One PPO self-play run: network, optimizer, opponent pool, game batch, logs.

    ``evaluate(agent, update, deals) -> dict`` is the evaluation hook (``agent``: the network as a frozen
    :class:`~vint_env.agents.learned.policy.PPOAgent` in memory; ``vint_env/training/evaluation.py`` wires
    the harness in); ``logger`` receives every scalar (``vint_env/training/logs.py``).  The game is resolved
    here, once, into its record (``self.game``, a :class:`vint_env.games.Game`) and passed down.  ``progress``
    (``vint_env/training/progress.py``) receives the run's stages (teacher data, cloning, each
    evaluation, the PPO updates) and its notes; without it, ``say`` takes the notes.
    """

    def __init__(self, cfg: PPOConfig, run_dir: str | Path, evaluate=None, logger=None, make_bot=None, say=None,
                 progress=None):
        self.cfg = cfg
        self.run_dir = Path(run_dir)
        self.ckpt_dir = self.run_dir / "checkpoints"
        torch.set_num_threads(cfg.run.torch_threads)   # also makes float results repeatable across resumes
        torch.manual_seed(cfg.run.seed)
        self.device = resolve_device(cfg.run.device)    # the network, its optimizer and the learner's batches
        self.game = games.get(cfg.run.game)
        self.batch = make_game_batch(cfg.collection.env_source, self.game, cfg.collection.num_envs, cfg.run.env_kwargs,
                                     RewardShaper(cfg.shaping.shaping_trick_reward, cfg.shaping.shaping_exclude_items,
                                                  cfg.shaping.shaping_deal_transform, cfg.shaping.shaping_deal_scale))
        self.obs_size, self.num_actions = self.batch.obs_size, self.batch.num_actions
        self.net = build_network(cfg.model.network, self.obs_size, self.num_actions, cfg.model.network_kwargs
                                 ).to(self.device)
        self.critic: nn.Module | None = None
        params = list(self.net.parameters())
        if cfg.model.central_critic:
            if self.batch.state_size is None:
                raise ValueError(f"central_critic needs the games' state(), and env_source "
                                 f"{cfg.collection.env_source!r} has none for {self.game.name}")
            self.critic = CentralCritic(self.batch.state_size, cfg.model.critic_hidden_sizes).to(self.device)
            params += list(self.critic.parameters())
        try:
            self.optimizer = torch.optim.Adam(params, lr=cfg.ppo.learning_rate, eps=1e-5,
                                              **({"fused": True} if cfg.ppo.fused_adam else {}))
        except (RuntimeError, TypeError) as e:
            raise ValueError(f"fused_adam: this torch ({torch.__version__}) has no fused Adam on {self.device.type} ({e}); "
                             f"set fused_adam: false") from None
        self.pool = OpponentPool(cfg.opponents.pool_size)
        make_bot = make_bot or default_bot_factory(self.game)
        for kind in BOT_KINDS:
            if cfg.opponents.opponent_mix.get(kind, 0) > 0:
                make_bot(kind)   # fail now, not in the middle of a rollout, if a bot is missing
        self.collector = SelfPlayCollector(self.batch, cfg.opponents.opponent_mix, cfg.collection.num_steps, make_bot,
                                           cfg.collection.duplicate, record_states=cfg.model.central_critic)
        if cfg.teacher_data.teacher:
            from vint_env.agents.registry import load_agent
            load_agent(cfg.teacher_data.teacher, game=self.game)   # a bad teacher spec fails now
        self.reference: nn.Module | None = None   # the frozen warm start (kl_coef > 0)
        self.progress = progress or Quiet(say or (lambda msg: None))
        self.say = self.progress.note               # progress notes (teacher data, behaviour cloning)
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
        return run_payload(self.cfg, self.obs_size, self.num_actions, self.net, self.optimizer, self.pool, self.state,
                           self.reference, self.critic, self.behaviour, self.last_eval)

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

    # -- the warm start (warm_start.py) -----------------------------------------
    def _keep_warm_start(self) -> None:
        """The network now is the run's start: the KL reference (``kl_coef > 0``) and ``warm_start.pt``, which
        the final evaluation plays the agent after RL against."""
        if self.cfg.init.kl_coef > 0:
            self.reference = warm_start.frozen_copy(self.net)
        warm_start.save_warm_start(self.ckpt_dir, policy_payload(self.cfg, self.obs_size, self.num_actions,
                                                                 self.net.state_dict()))
        self.state.pretrained = True

    def init_from(self) -> None:
        """Start the network from the checkpoint ``init_from`` (``warm_start.init_weights``)."""
        self.net.load_state_dict(warm_start.init_weights(self.cfg, self.game))
        self._keep_warm_start()
        self.say(f"init_from: the network of {self.cfg.init.init_from} starts the run")

    def pretrain(self, seconds=None) -> list[dict]:
        """Clone the teacher (``warm_start.clone_teacher``), log ``bc/...`` rows at update 0 and save a
        checkpoint; the cloning's history."""
        history, rows = warm_start.clone_teacher(self.cfg, self.game, self.net,
                                                 seconds or (lambda: self.state.train_seconds), self.say, self.progress)
        if self.logger is not None:
            for row in rows:
                self.logger.log(0, 0, row)
        self._keep_warm_start()
        self.save()
        return history

    def kl_coef_now(self, frac: float) -> float:
        return warm_start.kl_coef_at(self.cfg, frac)

    # -- evaluation (eval_schedule.py) ----------------------------------------
    def frozen_agent(self, name: str) -> PPOAgent:
        """The network now as a greedy agent, a frozen CPU copy held in memory: what an evaluation plays."""
        return PPOAgent.from_network(self.net, self.game.name, name=name)

    def run_evaluation(self, deals: int, final: bool = False, title: str = "") -> dict:
        """Play, log and return an evaluation of the current weights (a frozen copy in memory, no file; its
        matches are the stages ``<title> vs <opponent>``).  The checkpoint saved before it marks it pending,
        the one after it clears that: ``--resume`` after a kill in between plays it again."""
        st = self.state
        if self.evaluate is None:
            if final:
                st.final_eval_update = st.update
            return {}
        st.pending_eval_deals, st.pending_eval_final = deals, final
        self.save()
        before = warm_start.warm_start_checkpoint(self.ckpt_dir) if final else None
        title = title or ("final evaluation" if final else f"evaluation at update {st.update}")
        with self.progress.section(title):
            scalars = eval_schedule.play(self.evaluate, self.frozen_agent(f"network (update {st.update})"),
                                         st.update, deals, self.logger, before)
        self.last_eval = dict(scalars)
        if self.logger is not None:
            self.logger.log(st.update, st.global_step, {**scalars, FINAL_EVALUATION: 1} if final else scalars)
        st.pending_eval_deals, st.pending_eval_final = 0, False
        if final:
            st.final_eval_update = st.update
        self.save()
        return scalars

    def evaluate_before_cloning(self, deals: int) -> dict:
        """Evaluate the untrained network before the warm start clones the teacher, logged at update 0 as
        ``eval_before_cloning/<opponent>/...``: where the learning curves start.  The checkpoint saved first
        leaves it undone (``--resume`` plays it again); the harness plays a frozen copy of the weights in memory."""
        if self.evaluate is None:
            return {}
        self.save()
        self.say(f"evaluating the untrained network ({deals} boards per opponent) ...")
        with self.progress.section("untrained network"):
            found = eval_schedule.play(self.evaluate, self.frozen_agent("network (untrained)"), 0, deals,
                                       self.logger, prefix=eval_schedule.BEFORE_CLONING)
        self.say(f"the untrained network: {margins(found)}")
        scalars = eval_schedule.before_cloning(found)
        if self.logger is not None:
            self.logger.log(0, 0, scalars)
        self.state.evaluated_before_cloning = True
        self.save()
        return scalars

    # -- one update (ppo.py) --------------------------------------------------
    def budget_fraction(self) -> float:
        """Share of the run's budget used so far (``vint_env/training/schedule.py``)."""
        cfg, st = self.cfg, self.state
        return budget_fraction(st.global_step, cfg.run.total_timesteps, st.train_seconds, cfg.run.max_minutes)

    def budget_spent(self) -> bool:
        cfg, st = self.cfg, self.state
        return budget_spent(st.global_step, cfg.run.total_timesteps, st.train_seconds, cfg.run.max_minutes)

    def coefficients(self) -> dict:
        """This update's learning rate, clip and entropy coefficients (and KL weight), annealed by the budget used."""
        frac = self.budget_fraction()
        return {**ppo.coefficients(self.cfg.ppo, frac),
                **({"kl_coef": self.kl_coef_now(frac)} if self.reference is not None else {})}

    def update_once(self) -> dict:
        """One PPO iteration (``ppo.iteration``), counted; its scalars."""
        coefs = self.coefficients()
        rng, gen = seeded(self.cfg.run.seed, self.state.update, 0)
        rollout, scalars = ppo.iteration(self.net, self.optimizer, self.collector, self.pool.modules(self.net),
                                         self.cfg.ppo, coefs, rng, gen, self.reference, self.critic)
        return self.account(rollout, scalars)

    def account(self, rollout: Rollout, scalars: dict) -> dict:
        """Count an update done on ``rollout`` (and snapshot into the pool when due); its scalars."""
        st = self.state
        st.update += 1
        st.global_step += rollout.env_steps
        st.samples += len(rollout)
        if st.update % self.cfg.opponents.pool_add_every == 0:
            self.pool.add(self.net)
        return scalars

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
            self.init_from()
        if warm_start.wanted(cfg, st):
            if cfg.evaluation.eval_every and not st.evaluated_before_cloning:   # the curves start before cloning
                self.evaluate_before_cloning(cfg.evaluation.eval_deals)
                st.train_seconds = seconds()
            self.pretrain(seconds)
            st.train_seconds = seconds()   # teacher data and cloning are in the budget
            if cfg.evaluation.eval_every and self.evaluate is not None and not self.budget_spent():
                clone = self.run_evaluation(cfg.evaluation.eval_deals, title="the clone")   # where PPO starts
                self.say(f"the clone: {margins(clone)}")
        if not self.budget_spent():    # a clone-only run, or a finished one resumed, has no update to make
            # the PPO updates' own stage: its rate and ETA leave out the warm start and the evaluations before it
            total = cfg.run.total_timesteps
            with (self.progress.stage("PPO updates", total, "step", initial=min(st.global_step, total)) as bar,
                  contextlib.closing(self.updates()) as updates):   # closing stops the collectors, whatever happens
                self._loop(updates, seconds, progress, bar)
        stopped_early = st.global_step < cfg.run.total_timesteps
        if st.final_eval_update == st.update:
            final = {**self.last_eval, "already_finished": True}
        else:
            final = self.run_evaluation(cfg.evaluation.final_eval_deals, final=True)
            self.save()
        final["stopped_early"] = stopped_early
        return final

    def _loop(self, updates, seconds, progress, bar) -> None:
        """After each update: log, evaluate when due, advance the bar, report progress, checkpoint."""
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
            bar.update_to(min(st.global_step, cfg.run.total_timesteps))
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
                return {"model": {k: v.detach().to("cpu", copy=True) for k, v in self.net.state_dict().items()},
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
                losses = ppo.learn(self.net, self.optimizer, rollout, cfg.ppo, coefs, rng, self.reference, self.critic)
                t2 = time.perf_counter()
                figures = ppo.rollout_figures(rollout, collect_seconds, t2 - t1, t2 - t_last, cfg.collection.duplicate)
                yield self.account(rollout, {**coefs, **losses, **figures})
                t_last = time.perf_counter()
        finally:
            collectors.close()
