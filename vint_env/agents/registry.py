"""Building agents from their specs: :func:`load_agent` and the factories the kinds of
:mod:`vint_env.agents.spec` name.

Every kind of player has a spec (:data:`vint_env.agents.spec.KINDS` declares them, with their options;
``vint-eval agents`` lists them):

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
``network:PATH``      a trained network from checkpoint PATH: PPO's, a clone's,
                      a distilled one (``vint_env.agents.learned.policy.PPOAgent.load(PATH,
                      game=...)``); ``ppo:PATH`` is an alias of it
``baseline[:DIR]``    the trained policy shipped for the game
                      (``vint_env/baselines/<game>.pt``, or DIR's; made by
                      ``python -m training.baseline --game GAME``; see
                      :mod:`vint_env.agents.learned.baseline`)
``residual[:DIR]``    the game's rule bot corrected by a shipped critic network
                      (``<game>_residual.pt``, or ``<game>.pt`` when the
                      baseline is one; :func:`~vint_env.agents.learned.baseline.load_residual`)
``bidder:PATH``       a Vint auction learnt from its calls' outcomes, with the
                      rule bot's or its own card network's play
                      (``PATH[,cards=rule][,margin=POINTS]``; see
                      :mod:`vint_env.agents.learned.bidder`)
``human``             a person at the terminal
``openspiel:ismcts``  OpenSpiel's information-set MCTS with random rollouts
``[,OPTIONS]``        (:mod:`vint_env.wrappers.openspiel_agent`; needs the
                      openspiel extra); options
                      ``sims=N,worlds=N,rollouts=N,uct=X,seed=N``
``program:PATH``      a bot in any language: an executable that plays over
``[,OPTIONS]``        stdin/stdout in JSON lines (:mod:`vint_env.agents.program`);
                      options ``time=SECONDS,start=SECONDS,args=TEXT``; never
                      from a `vint-serve` request
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
from .spec import KINDS, AgentSpec, AgentSpecError, parse_spec

__all__ = ["AgentSpecError", "GAMES", "SPECS", "load_agent", "rule_agent", "short_spec"]

#: The games agents play (from :mod:`vint_env.games`).
GAMES = games.names()
#: How each kind's spec is written (from the declarations of :mod:`vint_env.agents.spec`).
SPECS = tuple(k.usage() for k in KINDS.values())


def rule_agent(game: Game | str = "vint") -> Agent:
    """The rule bot of ``game`` (named by the game's record)."""
    return games.get(game).rule_agent()


def short_spec(spec: str | AgentSpec) -> str:
    """A spec as a seat's label shows it: a file or folder it names by its run and file name, not its whole path.

    >>> short_spec("network:runs/quick/checkpoints/latest.pt")
    'network:quick/latest.pt'
    >>> short_spec("ppo:/tmp/my_agent.pt"), short_spec(" rule"), short_spec("bidder:/a/b/bid.pt,cards=rule")
    ('network:my_agent.pt', 'rule', 'bidder:bid.pt,cards=rule')
    """
    spec = parse_spec(spec)
    arg = spec.declaration.argument
    if spec.argument is None or arg is None or arg.path not in ("file", "folder"):
        return str(spec)
    parts = spec.argument.replace("\\", "/").rstrip("/").split("/")
    short = f"{parts[-3]}/{parts[-1]}" if len(parts) >= 3 and parts[-2] == "checkpoints" else parts[-1]
    rest = str(spec)[len(spec.kind) + 1 + len(spec.argument):]
    return f"{spec.kind}:{short}{rest}"


def load_agent(spec: str | AgentSpec, game: Game | str = "vint", seed: int | None = None) -> Agent:
    """Build the agent named by ``spec`` (its text or a parsed :class:`~vint_env.agents.spec.AgentSpec`) for
    ``game`` (its record, or its name: ``"vint"`` or ``"vint_v0"``, resolved here once and passed on as the
    record).  A spec that names no agent is an :class:`AgentSpecError`; a kind whose extra is missing an
    ImportError naming the extra."""
    record = games.get(game)
    spec = parse_spec(spec)
    declared = spec.declaration
    module_name, _, attr = declared.make.partition(":")
    try:
        agent = getattr(importlib.import_module(module_name), attr)(record, spec, seed)
    except ImportError as exc:
        if declared.extra is None:
            raise
        raise ImportError(f"agent spec {spec.kind!r} needs the {declared.extra} extra "
                          f"(pip install 'vint-env[{declared.extra}]'): {exc}") from exc
    if seed is not None:
        agent.reset(seed)
    return agent


# ----------------------------------------------------------------- the factories the kinds name
def make_random(record: Game, spec: AgentSpec, seed: int | None) -> Agent:
    return RandomAgent(seed)


def make_rule(record: Game, spec: AgentSpec, seed: int | None) -> Agent:
    return record.rule_agent()


def make_dd(record: Game, spec: AgentSpec, seed: int | None) -> Agent:
    return record.dd_agent_factory()(record)


def make_pimc(record: Game, spec: AgentSpec, seed: int | None) -> Agent:
    """The game's PIMC agent (its record names the factory, ``factory(record, spec, seed)``)."""
    return record.pimc_agent_factory()(record, spec, seed)


def make_network(record: Game, spec: AgentSpec, seed: int | None) -> Agent:
    from .learned.policy import PPOAgent
    return PPOAgent.load(spec.argument, game=record)


def make_baseline(record: Game, spec: AgentSpec, seed: int | None) -> Agent:
    import torch  # noqa: F401  (the train extra: an ImportError naming it when missing)
    from .learned.baseline import load_baseline
    return load_baseline(record, spec.argument)


def make_residual(record: Game, spec: AgentSpec, seed: int | None) -> Agent:
    import torch  # noqa: F401
    from .learned.baseline import load_residual
    return load_residual(record, spec.argument)


def make_human(record: Game, spec: AgentSpec, seed: int | None) -> Agent:
    from .human import HumanAgent
    return HumanAgent(record)


def make_py(record: Game, spec: AgentSpec, seed: int | None) -> Agent:
    """``NAME(game=...)`` from module ``MODULE`` of spec ``py:MODULE:NAME``."""
    module_name, _, attr = spec.argument.partition(":")
    if not module_name or not attr:
        raise AgentSpecError(f"agent spec {str(spec)!r}: expected 'py:MODULE:NAME'")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise AgentSpecError(f"agent spec {str(spec)!r}: cannot import module {module_name!r} ({exc})") from None
    factory = getattr(module, attr, None)
    if not callable(factory):
        raise AgentSpecError(f"agent spec {str(spec)!r}: module {module_name!r} has no callable {attr!r}")
    try:
        agent = factory(game=record.name)
    except Exception as exc:       # the user's factory: say which call failed, not only how
        raise AgentSpecError(f"agent spec {str(spec)!r}: {attr}(game={record.name!r}) failed: "
                             f"{type(exc).__name__}: {exc}") from exc
    if not isinstance(agent, Agent):
        raise AgentSpecError(f"agent spec {str(spec)!r}: {attr}(game=...) returned {type(agent).__name__}, "
                             "not a vint_env.agents.Agent")
    return agent
