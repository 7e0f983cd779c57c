"""OpenSpiel's bots as agents of the package (agent spec ``openspiel:ismcts[,OPTIONS]``).

``openspiel:ismcts`` is OpenSpiel's information-set MCTS
(``open_spiel.python.algorithms.ismcts.ISMCTSBot``) with random rollouts
(``mcts.RandomRolloutEvaluator``) on the game's OpenSpiel version
(:mod:`vint_env.wrappers.openspiel`).  At each decision the agent makes the
OpenSpiel state of the env's deal (as OpenSpiel bots are given states) and
the bot searches from it: every simulation starts from
``state.resample_from_infostate(player)``, a deal drawn afresh among those the
player cannot tell from this one (the package's exact deal sampler), so the
search uses only what the player knows.

Options (``openspiel:ismcts,sims=100,worlds=0,rollouts=1,uct=2,seed=7``; declared, with their ranges, by
the kind ``openspiel`` of :mod:`vint_env.agents.spec`):

- ``sims``: simulations per decision (default :data:`DEFAULT_SIMS`);
- ``worlds``: resampled deals kept per decision and reused, 0 = a new one per
  simulation (default 0);
- ``rollouts``: random rollouts per leaf (default 1);
- ``uct``: the UCT constant in units of the env's default scaled reward (the
  returns are real points; the constant is divided by the game's
  ``reward_scale``), default 2;
- ``seed``: the seed when the harness gives none (it gives one per deal).

Deal episodes only; two-player Vint in ways 1 and 4 (the piles of ways 2 and
3 and the widow of way 5 are not found from the env).
"""

from __future__ import annotations

import numpy as np

from .. import games
from ..agents.base import Agent
from ..agents.spec import AgentSpec, kind
from .openspiel import VintSpielState, deck_order, game_parameters, load_game

DEFAULT_SIMS = kind("openspiel").option("sims").default
BOTS = kind("openspiel").argument.allowed


def make_agent(game, spec: AgentSpec, seed: int | None = None) -> Agent:
    """The agent of spec ``openspiel:BOT[,OPTIONS]`` (parsed: :class:`~vint_env.agents.spec.AgentSpec`) for ``game``."""
    opts = spec.given
    if seed is None:
        seed = opts.pop("seed", None)
    else:
        opts.pop("seed", None)
    return ISMCTSAgent(game, seed=seed, **opts)


class ISMCTSAgent(Agent):
    """OpenSpiel's ``ISMCTSBot`` with random rollouts (see the module docstring)."""

    needs_env = True        # reads the env to make the OpenSpiel state; the search sees only resampled deals

    def __init__(self, game: str = "whist", sims: int = DEFAULT_SIMS, worlds: int = 0, rollouts: int = 1,
                 uct: float = 2.0, seed: int | None = None):
        # the declared options of spec kind 'openspiel': type and range, for a spec and a direct call alike
        checked = AgentSpec("openspiel", "ismcts", (("sims", sims), ("worlds", worlds), ("rollouts", rollouts),
                                                    ("uct", uct)))
        sims, worlds, rollouts, uct = (checked.option(k) for k in ("sims", "worlds", "rollouts", "uct"))
        self.record = games.get(game)
        self.params = game_parameters(self.record)          # the env's options: its defaults until it is seen
        self.game = load_game(self.record)
        self.sims, self.worlds, self.rollouts, self.uct = sims, worlds, rollouts, uct
        self.name = f"openspiel:ismcts,sims={sims}" + (f",worlds={worlds}" if worlds else "")
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        self.rs = np.random.RandomState(None if seed is None else seed % 2**32)
        self._new_bot()

    def _new_bot(self) -> None:
        from open_spiel.python.algorithms import ismcts, mcts
        rs = self.rs
        scale = self.record.reward_scale / self.record.points_scale      # points -> the env's scaled reward
        self.bot = ismcts.ISMCTSBot(
            self.game, mcts.RandomRolloutEvaluator(self.rollouts, rs), self.uct / scale, self.sims,
            max_world_samples=self.worlds or ismcts.UNLIMITED_NUM_WORLD_SAMPLES, random_state=rs)
        # The bot's own resampler draws from an unseeded OpenSpiel sampler: seed every draw from rs instead,
        # so that a match replays from its seed.
        self.bot.set_resampler(lambda state, player: state.resample_from_infostate(player, int(rs.randint(2**31))))
        self._mirror: VintSpielState | None = None
        self._deal = None

    def act(self, observation: dict, env=None, agent: str | None = None) -> int:
        if env is None:
            raise ValueError("the openspiel:ismcts agent reads the env (needs_env): pass env= to act")
        state = self.state_of(env.unwrapped)
        action = int(self.bot.step(state))
        if not observation["action_mask"][action]:
            raise RuntimeError(f"{self.name} chose {action}, which the env does not allow")
        return action

    def state_of(self, raw) -> VintSpielState:
        """The OpenSpiel state of the raw env's deal, kept up to date from its action history."""
        params = {name: getattr(raw, name, default) for name, default in self.params.items()}
        if params != self.game.options:                   # the env plays other options (way=1 ...)
            self.game = load_game(self.record, **params)
            self._new_bot()
        done = self._mirror.core.actions if self._mirror is not None else None
        history = raw.action_history
        if raw.deal is not self._deal or done is None or history[:len(done)] != done:
            self._mirror, self._deal = mirror(self.game, raw), raw.deal
        else:
            for a in history[len(done):]:
                self._mirror.apply_action(a)
        return self._mirror


def mirror(game, raw) -> VintSpielState:
    """The OpenSpiel state of the deal a raw env is playing: its chance outcomes found, its actions replayed.

    The shuffled deck comes from the deal's hands as dealt; the other chance
    nodes (dealer, turned card ...) are tried outcome by outcome until the
    replayed deal's full state (``state()``) is the env's.
    """
    deal = raw.deal
    if getattr(raw, "rubber", None) is not None:
        raise ValueError("the OpenSpiel games play deal episodes, not rubbers")
    deck = deck_order(getattr(deal, "dealt", None) or deal.hands)
    target = raw._encode_state()
    actions = list(raw.action_history)

    def search(state: VintSpielState, budget: list[int]) -> VintSpielState | None:
        while state.is_chance_node() and state.core.pending.total == len(deck):
            state.apply_action(deck[state.core.pending.place])
        if state.is_chance_node():
            for outcome in sorted(state.core.pending.choices):
                budget[0] -= 1
                if budget[0] < 0:
                    return None
                child = state.clone()
                child.apply_action(outcome)
                found = search(child, budget)
                if found is not None:
                    return found
            return None
        for a in actions:
            if state.is_terminal() or not state.core.env._is_legal(a):
                return None
            state.apply_action(a)
        return state if np.array_equal(state.core.env._encode_state(), target) else None

    found = search(game.new_initial_state(), [10_000])
    if found is None:
        raise ValueError(f"{game.get_type().short_name}: could not find the chance outcomes of the env's deal "
                         "(two-player Vint's piles and widow are not supported)")
    return found


__all__ = ["BOTS", "DEFAULT_SIMS", "ISMCTSAgent", "make_agent", "mirror"]
