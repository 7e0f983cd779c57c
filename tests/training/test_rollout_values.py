"""Rollout action values as imitation targets (``teacher_values: rollout``): each legal action of a teacher's
decision is worth the points its seat ends the deal with when the teacher plays on from it, on the true deal.

Checked against the deal itself: the teacher's own action is worth what the deal really paid, and any other
action is worth what a replay of the deal from the start with that action forced pays.  Values are in the
game's points (Whist rewards are tenths of points, Solo Whist rewards quarter points times 0.25)."""

from pathlib import Path

import numpy as np
import pytest

from card_game_checks import ONE_SUIT_EACH
from vint_env import games
from vint_env.training.config import ConfigError, load_config
from vint_env.games import AGENTS
from vint_env.training.teacher_data import cache_key, deal_seeds, generate, play_deals
from vint_env.training.value_targets import RolloutValues, check_values, clone_env
from vint_env.agents.registry import load_agent
from vint_env.envs import solo_whist_v0, whist_v0
from vint_env.rules.solo_whist_calls import (ABONDANCE, DECLAREE, MISERE, OPEN_MISERE, PASS, PROPOSAL,
                                              SOLO)

SMOKE = Path(__file__).resolve().parents[2] / "configs" / "smoke.yaml"
SEED = 5


@pytest.fixture(scope="module")
def solo_values():
    return play_deals(games.get("solo_whist"), {}, "rule", SEED, 0, 4, values="rollout")


def _teacher_deal(module, seed: int, k: int, forced: dict | None = None, valuer_kind=None):
    """Deal ``k`` of data seed ``seed`` played by the rule bot in all seats, as ``play_deals`` plays it;
    ``forced``: ``{decision index: action}`` taken instead of the teacher's.  Returns the decisions'
    ``(seat name, action, mask)``, each decision's return in env rewards, and the valuer if asked."""
    env = module.raw_env()
    agents = [load_agent("rule", game=env.GAME.name) for _ in AGENTS]
    env_seed, agent_seeds = deal_seeds(seed, k)
    env.reset(seed=env_seed)
    for agent, s in zip(agents, agent_seeds):
        agent.reset(s)
    valuer = RolloutValues(env.GAME, env.NUM_ACTIONS, agents) if valuer_kind else None
    decisions, before, received = [], [], {a: 0.0 for a in AGENTS}
    while env.agents:
        name = env.agent_selection
        if env.terminations[name] or env.truncations[name]:
            env.step(None)
            continue
        ob = env.observe(name)
        if valuer is not None:
            valuer.note(len(decisions), env, ob)
        a = int(agents[AGENTS.index(name)].act(ob, env=env, agent=name))
        if forced and len(decisions) in forced:
            a = forced[len(decisions)]
        decisions.append((name, a, ob["action_mask"].astype(bool)))
        before.append(received[name])
        env.step(a)
        for ag in AGENTS:
            received[ag] += env.rewards[ag]
    returns = [received[name] - b for (name, _, _), b in zip(decisions, before)]
    return decisions, returns, valuer


def test_every_legal_action_and_only_those_have_values(solo_values):
    d = solo_values
    assert d.values is not None and d.values.shape == d.masks.shape
    assert np.array_equal(~np.isnan(d.values), d.masks)
    forced = d.masks.sum(1) == 1
    assert forced.any() and (~forced).any()
    assert np.all(d.values[forced][d.masks[forced]] == 0)          # a forced action: 0, nothing rolled out
    # Solo Whist payments are whole quarter points
    legal = d.values[d.masks]
    assert np.allclose(legal * 4, np.round(legal * 4))


@pytest.mark.parametrize("module,seed", [(solo_whist_v0, SEED), (whist_v0, 2)])
def test_the_teachers_own_action_is_worth_the_real_outcome_of_the_deal(module, seed):
    """``solve()`` without the teacher's actions rolls out every legal action, the teacher's too: that rollout
    must be the deal the teacher really played (same env copy, same agent memories), in the game's points."""
    scale = module.raw_env().reward_scale / module.raw_env.GAME.points_scale     # env reward per point
    checked = played = 0
    for k in range(3):
        decisions, returns, valuer = _teacher_deal(module, seed, k, valuer_kind="rollout")
        solved = valuer.solve()
        assert sorted(solved) == list(range(len(decisions)))
        for row, (_, a, mask) in enumerate(decisions):
            if mask.sum() > 1:
                assert solved[row][a] == pytest.approx(returns[row] / scale, abs=1e-4)
                checked += 1
                played += a < 52
    assert checked > 20 and played > 10


def test_an_actions_value_is_the_deal_replayed_with_that_action_forced(solo_values):
    d = solo_values
    rng = np.random.default_rng(0)
    kinds = {"card": 0, "call": 0}
    for k in np.unique(d.deal_ids):
        rows = np.flatnonzero(d.deal_ids == k)
        for j, r in enumerate(rows):
            others = [a for a in np.flatnonzero(d.masks[r]) if a != d.actions[r]]
            if not others or rng.random() > 0.3:
                continue
            a = int(rng.choice(others))
            decisions, returns, _ = _teacher_deal(solo_whist_v0, SEED, int(k), forced={j: a})
            assert decisions[j][1] == a and decisions[j][0] == AGENTS[d.seats[r]]
            assert d.values[r, a] == pytest.approx(returns[j])          # Solo Whist rewards are points
            kinds["card" if a < 52 else "call"] += 1
    assert kinds["card"] >= 3 and kinds["call"] >= 1


def test_calls_by_hand_everyone_holding_a_whole_suit():
    """Each player holds a whole suit, eldest (north) the spades.  Abondance déclarée (all 13 tricks at no
    trump, the declarer leading) is made at once: 6 points from each of the three others, +18.  Any other
    call lets east, holding all the hearts, bid déclarée over it (the rule bot's first rule) and make it:
    north pays 6 points.  The rule bot's own call is déclarée."""
    env = solo_whist_v0.raw_env()
    agents = [load_agent("rule", game="solo_whist") for _ in AGENTS]
    env.reset(seed=0, options={"deal": ONE_SUIT_EACH, "dealer": 3, "turned_card": "C2"})
    valuer = RolloutValues(games.get("solo_whist"), env.NUM_ACTIONS, agents)
    ob = env.observe("player_0")
    valuer.note(0, env, ob)
    assert agents[0].act(ob) == DECLAREE
    v = valuer.solve()[0]
    legal = np.flatnonzero(ob["action_mask"])
    assert set(legal) == {PASS, PROPOSAL, SOLO, MISERE, ABONDANCE, OPEN_MISERE, DECLAREE}
    assert v[DECLAREE] == 18.0
    assert all(v[a] == -6.0 for a in legal if a != DECLAREE)
    assert np.isnan(np.delete(v, legal)).all()


def test_values_are_deterministic_for_a_seed_and_cached_apart(solo_values):
    # again, in chunks (what the worker processes play): the same data
    again = generate(games.get("solo_whist"), {}, "rule", SEED, 4, chunk_deals=3, values="rollout")
    assert np.array_equal(again.values, solo_values.values, equal_nan=True)
    assert np.array_equal(again.actions, solo_values.actions)
    other = play_deals(games.get("solo_whist"), {}, "rule", SEED + 1, 0, 1, values="rollout").values
    first = solo_values.values[solo_values.deal_ids == 0]
    assert other.shape != first.shape or not np.array_equal(other, first, equal_nan=True)
    keys = {cache_key(games.get("solo_whist"), {}, "rule", SEED, 4, v) for v in ("", "rollout")}
    assert len(keys) == 2 and any("rolloutvalues" in key for key in keys)


def test_a_copied_env_goes_on_exactly_and_leaves_the_original_alone():
    env = solo_whist_v0.raw_env()
    agents = [load_agent("rule", game="solo_whist") for _ in AGENTS]
    env.reset(seed=123)
    copies = 0
    while env.agents and copies < 30:
        name = env.agent_selection
        if env.terminations[name]:
            env.step(None)
            continue
        ob = env.observe(name)
        twin = clone_env(env)
        assert twin.agent_selection == name
        np.testing.assert_array_equal(twin.observe(name)["observation"], ob["observation"])
        a = int(agents[AGENTS.index(name)].act(ob))
        twin.step(a)
        env.step(a)
        nxt = env.agent_selection
        if env.agents and not env.terminations[nxt]:
            np.testing.assert_array_equal(twin.observe(nxt)["observation"], env.observe(nxt)["observation"])
            # stepping the copy further leaves the original as it was
            seen = env.observe(nxt)["observation"].copy()
            twin.step(int(np.flatnonzero(twin.observe(nxt)["action_mask"])[0]))
            np.testing.assert_array_equal(env.observe(nxt)["observation"], seen)
        copies += 1
    assert copies == 30


def test_rubber_episodes_and_unknown_kinds_are_refused_by_name():
    with pytest.raises(ValueError, match="deal episodes"):
        check_values("rollout", games.get("whist"), {"episode": "rubber"})
    check_values("rollout", games.get("whist"), {"episode": "deal"})
    check_values("rollout", games.get("solo_whist"))
    with pytest.raises(ValueError, match="deal episodes"):
        play_deals(games.get("vint"), {"episode": "rubber"}, "rule", 1, 0, 1, values="rollout")
    with pytest.raises(ConfigError, match="deal episodes"):
        load_config(SMOKE, ["game=whist_v0", "teacher=rule", "teacher_values=rollout", "env_kwargs.episode=rubber"])
    cfg = load_config(SMOKE, ["game=solo_whist_v0", "teacher=rule", "teacher_values=rollout"])
    assert cfg.value_targets.teacher_values == "rollout"
    with pytest.raises(ValueError, match="teacher_values must be one of"):
        check_values("montecarlo", games.get("solo_whist"))


def test_auction_only_values_are_the_full_kinds_on_the_auction_and_nothing_on_the_cards(solo_values):
    d = play_deals(games.get("solo_whist"), {}, "rule", SEED, 0, 4, values="rollout_auction")
    assert np.array_equal(d.actions, solo_values.actions)
    cards = d.masks[:, :52].any(axis=1)
    assert cards.any() and (~cards).any()
    assert np.isnan(d.values[cards]).all()                      # the teacher's card stays the target
    assert np.array_equal(d.values[~cards], solo_values.values[~cards], equal_nan=True)
    assert not d.value_rows[cards].any() and d.value_rows[~cards].all()
    check_values("rollout_auction", games.get("vint"))
    with pytest.raises(ValueError, match="deal episodes"):
        check_values("rollout_auction", games.get("vint"), {"episode": "rubber"})
