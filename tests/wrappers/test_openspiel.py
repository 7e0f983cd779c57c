"""The OpenSpiel games (vint_env.wrappers.openspiel) and the openspiel:ismcts agent.

Skipped, saying so, without OpenSpiel (pip install 'vint-env[openspiel]').
"""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="OpenSpiel is not installed: pip install 'vint-env[openspiel]'")

from vint_env import games  # noqa: E402
from vint_env.agents.registry import load_agent  # noqa: E402
from vint_env.evaluation import generate_boards, run_match, summarize  # noqa: E402
from vint_env.wrappers import openspiel as vos  # noqa: E402
from vint_env.wrappers.openspiel_agent import mirror  # noqa: E402

GAMES = games.names()


def random_state(game, rng, decisions: int):
    """A state of ``game`` after the deal and ``decisions`` random actions (or the end)."""
    state = game.new_initial_state()
    done = 0
    while not state.is_terminal() and (state.is_chance_node() or done < decisions):
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.integers(len(outcomes))][0])
        else:
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
            done += 1
    return state


def live_states(game, seed: int, trials: int, decisions: int):
    """Up to ``trials`` states of ``game`` still being played, after 0..``decisions`` random actions."""
    rng = np.random.default_rng(seed)
    for _ in range(trials):
        state = random_state(game, rng, int(rng.integers(0, decisions)))
        if not state.is_terminal():
            yield state, rng


def test_every_game_is_registered_under_its_name():
    registered = set(pyspiel.registered_names())
    for record in games.all_games():
        assert f"python_{record.name}" in registered
        game = pyspiel.load_game(f"python_{record.name}")
        players = len(record.env_module().raw_env.AGENT_NAMES)
        assert (game.num_players(), game.num_distinct_actions()) == (players, record.num_actions)
        assert game.information_state_tensor_size() == game.observation_tensor_size() == record.layout.size
        assert game.max_chance_outcomes() == 52
        assert game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM


@pytest.mark.parametrize("name", GAMES)
def test_openspiel_random_sim_test(name):
    pyspiel.random_sim_test(pyspiel.load_game(f"python_{name}"), num_sims=2, serialize=False, verbose=False)


def test_openspiel_random_sim_test_with_serialization():
    pyspiel.random_sim_test(pyspiel.load_game("python_whist"), num_sims=1, serialize=True, verbose=False)


def test_the_deal_is_card_by_card_and_uniform():
    game = pyspiel.load_game("python_vint")
    state = game.new_initial_state()
    assert state.chance_outcomes() == [(d, 0.25) for d in range(4)]          # the dealer
    state.apply_action(2)
    for left in range(52, 1, -1):                                            # 51 nodes: the cards left
        outcomes = state.chance_outcomes()
        assert len(outcomes) == left and all(p == pytest.approx(1 / left) for _, p in outcomes)
        state.apply_action(outcomes[-1][0])                                  # the highest card left
    assert not state.is_chance_node()
    deal = state.core.env.deal
    # places 0..12 of the shuffled deck are seat 0's hand: highest cards first
    assert deal.hands[0] == sum(1 << c for c in range(39, 52)) and deal.dealer == 2
    assert state.current_player() == deal.current_player == 2               # the dealer calls first


def test_parameters_are_the_env_options():
    whist = pyspiel.load_game("python_whist(no_trump=True)")
    assert whist.get_parameters()["no_trump"] is True and whist.template.no_trump
    state = whist.new_initial_state()
    nodes = 0
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
        nodes += 1
    assert nodes == 52 and state.core.env.deal.turned_card is None          # no card turned
    assert pyspiel.load_game("python_vint2p", {"way": 1}).template.way == 1
    assert set(vos.game_parameters("vint")) == {"game_bonus", "passout", "honours", "game_race"}
    with pytest.raises(Exception, match="way must be one of"):
        pyspiel.load_game("python_vint2p(way=9)")
    with pytest.raises(Exception, match="unknown parameter|way"):
        vos.GAME_CLASSES["python_whist"]({"trumps": 1})


class Recorder:
    """The env's generator, recording each draw as the chance outcomes of the OpenSpiel game."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.bit_generator = self.rng.bit_generator
        self.outcomes: list[int] = []

    def integers(self, *args, **kwargs):
        value = self.rng.integers(*args, **kwargs)
        self.outcomes.append(int(value))
        return value

    def choice(self, items):
        value = self.rng.choice(items)
        self.outcomes.append(int(value))
        return value

    def permutation(self, items):
        order = self.rng.permutation(items)
        self.outcomes += [int(c) for c in order[:-1]]
        return order


@pytest.mark.parametrize("name", GAMES)
def test_env_and_openspiel_game_agree_step_by_step(name):
    record = games.get(name)
    game = pyspiel.load_game(f"python_{name}")
    for seed in range(4):
        env = record.raw_env(reward_scale=record.points_scale)        # rewards in points
        env._rng = recorder = Recorder(seed)
        env.reset()
        state = game.new_initial_state()
        for outcome in recorder.outcomes:
            assert state.is_chance_node() and outcome in dict(state.chance_outcomes())
            state.apply_action(outcome)
        rng = np.random.default_rng(100 + seed)
        returns = np.zeros(game.num_players())
        while env.agents and not all(env.terminations.values()):
            player = env.possible_agents.index(env.agent_selection)
            assert state.current_player() == player
            assert state.legal_actions() == sorted(env.legal_actions())
            for p, agent in enumerate(env.possible_agents):
                assert np.array_equal(state.observation_tensor(p), env.observe(agent)["observation"])
            action = env.legal_actions()[rng.integers(len(env.legal_actions()))]
            env.step(action)
            state.apply_action(action)
            returns += [env.rewards[a] for a in env.possible_agents]
        assert state.is_terminal()
        assert state.returns() == pytest.approx(list(returns)) and sum(state.returns()) == pytest.approx(0)
        assert any(state.returns()) or name == "solo_whist"           # real points (Solo Whist may throw in)


def _hidden_same_suit_pair(state, player, rng):
    """Two cards still held, of one suit, by two seats ``player`` does not see (not a turned card), or None."""
    deal = state.core.env.deal
    now = deal.play.hands if deal.play is not None else deal.hands
    seen = set(deal.visible_seats(player)) if hasattr(deal, "visible_seats") else {player}
    turned = getattr(deal, "turned_card", None)
    hidden = [s for s in range(4) if s not in seen]
    pairs = []
    for i, a in enumerate(hidden):
        for b in hidden[i + 1:]:
            for suit in range(4):
                ca = [c for c in range(13 * suit, 13 * suit + 13) if now[a] >> c & 1 and c != turned]
                cb = [c for c in range(13 * suit, 13 * suit + 13) if now[b] >> c & 1 and c != turned]
                pairs += [(x, y) for x in ca for y in cb]
    return pairs[rng.integers(len(pairs))] if pairs else None


@pytest.mark.parametrize("name", GAMES)
def test_information_state_tensor_never_depends_on_hidden_cards(name):
    game = pyspiel.load_game(f"python_{name}")
    checked = 0
    for state, rng in live_states(game, 7, 80, 30):
        player = int(rng.integers(game.num_players()))
        pair = _hidden_same_suit_pair(state, player, rng)
        if pair is None:
            continue
        x, y = pair
        start = next(first for kind, first, n in state.core.log if kind == "permutation" and n == 51)
        chance = state.core.chance                                  # swap them in the shuffled deck
        swapped = chance[:start] + [y if c == x else x if c == y else c for c in chance[start:start + 51]] \
            + chance[start + 51:]
        other = vos._replay(game, swapped, state.core.actions)
        assert other is not None                                    # same suits held: the play replays
        assert other.information_state_tensor(player) == state.information_state_tensor(player)
        assert other.information_state_string(player) == state.information_state_string(player)
        assert other.observation_tensor(player) == state.observation_tensor(player)
        # ... while the state did change: the holders see it
        assert any(other.observation_tensor(p) != state.observation_tensor(p) for p in range(game.num_players()))
        checked += 1
    assert checked >= 10


@pytest.mark.parametrize("name", GAMES)
def test_resample_keeps_what_the_player_knows(name):
    game = pyspiel.load_game(f"python_{name}")
    changed = 0
    for state, _ in live_states(game, 11, 12, 40):
        player = state.current_player()
        other = state.resample_from_infostate(player, pyspiel.UniformProbabilitySampler(0., 1.))
        assert other.information_state_string(player) == state.information_state_string(player)
        assert other.legal_actions() == state.legal_actions() and other.core.actions == state.core.actions
        changed += other.core.chance != state.core.chance
    assert changed >= 6                                           # the hidden cards were dealt again


def test_mirror_makes_the_state_of_an_env_deal():
    for name in ("vint", "whist", "solo_whist", "vint2p"):
        record = games.get(name)
        game = pyspiel.load_game(f"python_{name}")
        env = record.raw_env()
        env.reset(seed=3)
        rng = np.random.default_rng(3)
        for _ in range(9):
            if env.terminations[env.agent_selection]:
                break
            env.step(env.legal_actions()[rng.integers(len(env.legal_actions()))])
        state = mirror(game, env)
        assert state.core.actions == env.action_history
        for p, agent in enumerate(env.possible_agents):
            assert np.array_equal(state.observation_tensor(p), env.observe(agent)["observation"])


def test_ismcts_agent_spec_and_its_errors():
    agent = load_agent("openspiel:ismcts,sims=5,worlds=2", game="whist", seed=1)
    assert agent.name == "openspiel:ismcts,sims=5,worlds=2" and agent.needs_env
    for bad, message in (("openspiel", "needs its BOT"), ("openspiel:cfr", "BOT must be one of ismcts"),
                         ("openspiel:ismcts,sims=x", "sims must be a positive integer"),
                         ("openspiel:ismcts,depth=3", "unknown option 'depth'"),
                         ("openspiel:ismcts,sims=0", "positive"),
                         ("openspiel:ismcts,sims=99999999999", r"at most 100000")):
        with pytest.raises(ValueError, match=message):
            load_agent(bad, game="whist")


def test_ismcts_plays_a_duplicate_match_against_the_rule_bot():
    boards = generate_boards(1, seed=2001)
    result = run_match("whist", "openspiel:ismcts,sims=8", "rule", boards, seed=2001, analysis=False)
    summary = summarize(result)
    assert summary["boards"] == 1
    for table in result.boards[0].tables:
        assert len(table.replay[0].actions) == 52 and sum(table.points) == 0     # a whole deal, zero-sum


def test_ismcts_decision_depends_on_its_seed_not_on_hidden_cards():
    """Same seed, same choice, whichever way the cards the player cannot see lie."""
    from vint_env.cards import card_text, deal_to_pbn, hand_cards, random_deal
    record = games.get("whist")
    hands = list(random_deal(np.random.default_rng(4)))
    dealer, leader = 3, 0                                   # North leads; East's and South's cards are hidden
    turned = hand_cards(hands[dealer])[0]
    east, south = hand_cards(hands[1])[0], hand_cards(hands[2])[-1]
    swapped = hands[:]
    swapped[1] ^= (1 << east) | (1 << south)
    swapped[2] ^= (1 << east) | (1 << south)
    choices, views = [], []
    for deal in (hands, hands, swapped):
        env = record.raw_env()
        env.reset(seed=1, options={"deal": deal_to_pbn(deal), "dealer": dealer, "turned_card": card_text(turned)})
        assert env.agent_selection == f"player_{leader}"
        views.append(env.observe("player_0")["observation"])
        agent = load_agent("openspiel:ismcts,sims=30", game="whist", seed=5)
        choices.append(agent.act(env.observe("player_0"), env, "player_0"))
    assert np.array_equal(views[0], views[2])
    assert choices[0] == choices[1] == choices[2]


def test_the_integrations_page_recipes_run():
    import pathlib
    import re
    page = (pathlib.Path(__file__).resolve().parents[2] / "docs" / "integrations.md").read_text()
    section = page[page.index("## OpenSpiel"):page.index("## What did not work")]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) == 2
    exec(blocks[0], {})
    namespace: dict = {}
    exec(blocks[1].replace("max_simulations=100", "max_simulations=4"), namespace)   # a whole deal, cheaply
    assert namespace["state"].is_terminal() and sum(namespace["state"].returns()) == 0


def test_ismcts_agent_plays_the_options_the_env_plays():
    env = games.get("vint2p").raw_env(way=1)
    env.reset(seed=2)
    agent = load_agent("openspiel:ismcts,sims=2", game="vint2p", seed=1)
    state = agent.state_of(env)
    assert agent.game.options["way"] == 1 and state.core.env.way == 1
    assert np.array_equal(state.observation_tensor(0), env.observe("player_0")["observation"])
    assert env.action_space(env.agent_selection).contains(agent.act(env.observe(env.agent_selection), env))
