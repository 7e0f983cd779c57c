"""Agent spec strings: one name for every kind of player.

====================  ======================================================
spec                  agent
====================  ======================================================
``random``            :class:`RandomAgent`, uniform over the legal actions
``rule``              the game's rule bot (the books' advice)
``dd``                the game's double-dummy agent (cheats; Vint, Whist,
                      two-player Vint)
``pimc[:OPTIONS]``    :class:`~vint_env.agents.search.pimc.PIMCAgent`: sampled deals
                      solved double-dummy (fair; Vint, Whist, two-player
                      Vint); options
                      ``samples=N,time=SECONDS,auction=0|1,bid=rule|dd,seed=N``
``ppo:PATH``          a trained PPO policy from checkpoint PATH
                      (``vint_env.agents.learned.policy.PPOAgent.load(PATH, game=...)``)
``baseline[:DIR]``    the trained policy shipped for the game
                      (``vint_env/baselines/<game>.pt``, or DIR's; made by
                      ``python -m training.baseline --game GAME``; see
                      :mod:`vint_env.agents.learned.baseline`)
``residual[:DIR]``    the game's rule bot corrected by a shipped critic network
                      (``<game>_residual.pt``, or ``<game>.pt`` when the
                      baseline is one; :func:`~vint_env.agents.learned.baseline.load_residual`)
``bidder:PATH``       a Vint auction learnt from its calls' outcomes, with the
                      rule bot's or its own card network's play
                      (``PATH[,cards=rule]``; see
                      :mod:`vint_env.agents.learned.bidder`)
``human``             a person at the terminal
``openspiel:ismcts``  OpenSpiel's information-set MCTS with random rollouts
``[:OPTIONS]``        (:mod:`vint_env.wrappers.openspiel_agent`; needs the
                      openspiel extra); options
                      ``sims=N,worlds=N,rollouts=N,uct=X,seed=N``
``py:MODULE:NAME``    ``NAME(game=...)`` from an importable module (your own)
====================  ======================================================

>>> load_agent("random", game="vint", seed=1).name
'random'
"""

from __future__ import annotations

import importlib

from .. import games
from ..games import Game
from .base import Agent, RandomAgent

#: The games agents play (from :mod:`vint_env.games`).
GAMES = games.names()
SPECS = ("random", "rule", "dd", "pimc[:OPTIONS]", "search[:OPTIONS]", "ppo:PATH", "baseline[:DIR]", "residual[:DIR]", "bidder:PATH",
         "human",
         "openspiel:ismcts[:OPTIONS]", "py:MODULE:NAME")
#: Spec kinds whose agents live in a layer above this one: ``"module:factory"``, loaded on first use
#: (as the game records name their bots), ``factory(game, arg, seed)``.
ABOVE = {"openspiel": "vint_env.wrappers.openspiel_agent:make_agent"}


def rule_agent(game: Game | str = "vint") -> Agent:
    """The rule bot of ``game`` (named by the game's record)."""
    return games.get(game).rule_agent()


def short_spec(spec: str) -> str:
    """A spec as a seat's label shows it: a checkpoint by its run and file name, not its whole path.

    >>> short_spec("ppo:runs/quick/checkpoints/latest.pt")
    'ppo:quick/latest.pt'
    >>> short_spec("ppo:/tmp/my_agent.pt"), short_spec("rule")
    ('ppo:my_agent.pt', 'rule')
    """
    kind, sep, arg = str(spec).strip().partition(":")
    if kind != "ppo" or not arg:
        return spec
    parts = arg.replace("\\", "/").rstrip("/").split("/")
    if len(parts) >= 3 and parts[-2] == "checkpoints":
        return f"ppo:{parts[-3]}/{parts[-1]}"
    return f"ppo:{parts[-1]}"


class AgentSpecError(ValueError, TypeError):
    """An agent spec that names no agent: unknown kind, a module that does not import, a factory that fails."""


def load_agent(spec: str, game: Game | str = "vint", seed: int | None = None) -> Agent:
    """Build the agent named by ``spec`` for ``game`` (see the module table): its record, or its name
    (``"vint"`` or ``"vint_v0"``), resolved here once and passed on as the record."""
    record = games.get(game)
    game = record.name
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"agent spec must be a non-empty string, one of {', '.join(SPECS)}")
    spec = spec.strip()
    kind, _, arg = spec.partition(":")
    if kind == "random" and not arg:
        agent: Agent = RandomAgent(seed)
    elif kind == "rule" and not arg:
        agent = record.rule_agent()
    elif kind == "dd" and not arg:
        agent = record.dd_agent_factory()(record)
    elif kind == "pimc":
        agent = record.pimc_agent_factory()(record, arg, seed)
    elif kind == "search":
        try:
            from .search.search import make_search
        except ImportError as exc:
            raise ImportError("the search agent uses the shipped networks and needs the train extra "
                              f"(pip install 'vint-env[train]'): {exc}") from exc
        agent = make_search(record, arg, seed)
    elif kind == "ppo":
        if not arg:
            raise ValueError("agent spec 'ppo' needs a checkpoint path: 'ppo:path/to/ckpt.pt'")
        try:
            policy = importlib.import_module("vint_env.agents.learned.policy")
            ppo_agent = policy.PPOAgent
        except (ImportError, AttributeError) as exc:
            raise ImportError("PPO agents need the train extra / vint_env.agents.learned.policy "
                              f"(pip install 'vint-env[train]'): {exc}") from exc
        agent = ppo_agent.load(arg, game=record)
    elif kind in ("baseline", "residual"):
        try:
            import torch  # noqa: F401
        except ImportError as exc:
            raise ImportError(f"the {kind} agents are PPO policies and need the train extra "
                              f"(pip install 'vint-env[train]'): {exc}") from exc
        from .learned.baseline import load_baseline, load_residual
        agent = (load_baseline if kind == "baseline" else load_residual)(record, arg or None)
    elif kind == "bidder":
        try:
            from .learned.bidder import load_bidder
        except ImportError as exc:
            raise ImportError("bidder agents are PyTorch networks and need the train extra "
                              f"(pip install 'vint-env[train]'): {exc}") from exc
        agent = load_bidder(arg, game=record)
    elif kind == "human" and not arg:
        from .human import HumanAgent
        agent = HumanAgent(record)
    elif kind in ABOVE:
        if not arg:
            raise ValueError(f"agent spec {kind!r} needs a bot: '{kind}:ismcts'")
        module_name, _, attr = ABOVE[kind].partition(":")
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise ImportError(f"agent spec {spec!r} needs OpenSpiel: pip install 'vint-env[openspiel]' ({exc})") \
                from exc
        agent = getattr(module, attr)(record, arg, seed)
    elif kind == "py":
        module_name, _, attr = arg.partition(":")
        if not module_name or not attr:
            raise AgentSpecError(f"agent spec {spec!r}: expected 'py:MODULE:NAME'")
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise AgentSpecError(f"agent spec {spec!r}: cannot import module {module_name!r} ({exc})") from None
        factory = getattr(module, attr, None)
        if not callable(factory):
            raise AgentSpecError(f"agent spec {spec!r}: module {module_name!r} has no callable {attr!r}")
        try:
            agent = factory(game=game)
        except Exception as exc:       # the user's factory: say which call failed, not only how
            raise AgentSpecError(f"agent spec {spec!r}: {attr}(game={game!r}) failed: "
                                 f"{type(exc).__name__}: {exc}") from exc
        if not isinstance(agent, Agent):
            raise AgentSpecError(f"agent spec {spec!r}: {attr}(game=...) returned {type(agent).__name__}, "
                                 "not a vint_env.agents.Agent")
    else:
        raise AgentSpecError(f"unknown agent spec {spec!r}; known: {', '.join(SPECS)}")
    if seed is not None:
        agent.reset(seed)
    return agent
