"""The Gymnasium single-agent wrapper: the learner's own reward, masks, seeding, errors."""

import importlib.util
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from card_game_checks import ONE_SUIT_EACH_CLUBS_EAST
import vint_env  # noqa: F401  (registers the Gymnasium ids)
from vint_env.agents import Agent, RandomAgent
from vint_env.rules.tricks import IllegalActionError
from vint_env.rules.vint import PASS, parse_action
from vint_env.wrappers import GYM_IDS, REGISTERED_IDS, SingleAgentEnv

SEVEN_SPADES = parse_action("7S")

# 7S by N on ONE_SUIT_EACH_CLUBS_EAST: N holds only trumps, so N/S take all 13 tricks whatever is played.
# Worked by hand from docs/rules/vint.md, "Scoring a deal" (T = 70):
#   N/S: tricks 13 x 70 = 910; 13 tricks 2,000 + grand slam declared and made 10,000;
#        honours: N/S hold all five (S A K Q J 10); aces 2-2 (N/S SA, DA; E/W CA, HA) and N/S
#        took seven or more tricks, so their two aces count: (5 + 2) x 10 x 70 = 4,900;
#        coronets: N's 13 trumps from the ace 1,000 + 10 x 1,000 = 11,000, S's 13 plain
#        diamonds 500 + 10 x 500 = 5,500.  Total 34,310.
#   E/W: coronets: 13 plain clubs 5,500 + 13 plain hearts 5,500 = 11,000.  Total 11,000.
NS_MINUS_EW = 34_310 - 11_000
SCALE = 0.001


def passer_then_first_card(obs):
    """Pass in the auction, then play the lowest legal card."""
    mask = obs["action_mask"]
    return PASS if mask[PASS] else int(np.flatnonzero(mask)[0])


def play_out(env, policy, first_action=None):
    """Play an episode of ``env`` (already reset) with ``policy(mask)``; return the summed reward."""
    total, steps = 0.0, 0
    action = first_action
    while True:
        if action is None:
            action = policy(env.action_masks())
        _, reward, terminated, truncated, info = env.step(action)
        total += reward
        steps += 1
        action = None
        if terminated or truncated:
            return total, info, steps


def lowest_legal(mask):
    return int(np.flatnonzero(mask)[0])


def opener_of_seven_spades(obs):
    """Bid 7S when it is legal (N, first to call), else behave like passer_then_first_card."""
    return SEVEN_SPADES if obs["action_mask"][SEVEN_SPADES] else passer_then_first_card(obs)


@pytest.mark.parametrize("seats, sign, learner_plays_last_card", [
    (0, +1, False),       # the deal ends on W's card: an opponent's move
    (1, -1, False),
    (3, -1, True),        # W itself plays the last card
    ("NS", +1, False),
    ("EW", -1, True),
])
def test_learner_gets_its_own_final_reward_on_a_hand_worked_deal(seats, sign, learner_plays_last_card):
    opponents = {0: opener_of_seven_spades, 1: passer_then_first_card, 2: passer_then_first_card,
                 3: passer_then_first_card}
    env = SingleAgentEnv("vint_v0", seats=seats, opponents=opponents, reward_scale=SCALE)
    env.reset(seed=0, options={"deal": ONE_SUIT_EACH_CLUBS_EAST, "dealer": 0})
    rewards_before_end = []

    def policy(mask):
        return SEVEN_SPADES if mask[SEVEN_SPADES] else (PASS if mask[PASS] else lowest_legal(mask))

    total = 0.0
    while True:
        _, reward, terminated, truncated, info = env.step(policy(env.action_masks()))
        total += reward
        if terminated or truncated:
            break
        rewards_before_end.append(reward)
    assert not truncated
    assert rewards_before_end and all(r == 0 for r in rewards_before_end)
    assert info["deal"]["contract"] == "7S" and info["deal"]["declarer"] == 0
    assert tuple(info["deal"]["tricks"]) == (13, 0)
    assert info["points"] == NS_MINUS_EW
    assert total == pytest.approx(sign * NS_MINUS_EW * SCALE)
    last_card_seat = (env.aec.deal.play.last_leader + 3) % 4
    assert (last_card_seat in env.learner_seats) == learner_plays_last_card
    assert info["action_mask"].sum() == 0


def test_reward_sign_matches_the_points_of_the_learners_side_on_random_games():
    """Over many random deals the learner's summed reward is its side's points difference."""
    for seats in (0, 1, 2, 3, "NS", "EW"):
        env = SingleAgentEnv("vint_v0", seats=seats, opponents=RandomAgent(), reward_scale=1.0)
        env.reset(seed=11)
        rng = np.random.default_rng(5)
        nonzero = 0
        for _ in range(40):
            total, info, _ = play_out(env, lambda m: int(rng.choice(np.flatnonzero(m))))
            side = env.learner_seats[0] % 2
            expected = info["points"] if side == 0 else -info["points"]
            assert total == expected
            nonzero += expected != 0
            env.reset()
        assert nonzero > 10


def test_random_seat_mode_draws_seats_from_the_seed():
    env = SingleAgentEnv("vint_v0", seats="random", opponents="random")
    seen = []
    env.reset(seed=3)
    for _ in range(30):
        seen.append(env.learner_seats[0])
        assert env._observation_and_info()[1]["seat"] == env.learner_seats[0]
        play_out(env, lowest_legal)
        env.reset()
    assert set(seen) == {0, 1, 2, 3}
    env2 = SingleAgentEnv("vint_v0", seats="random", opponents="random")
    env2.reset(seed=3)
    again = []
    for _ in range(30):
        again.append(env2.learner_seats[0])
        play_out(env2, lowest_legal)
        env2.reset()
    assert again == seen


def test_partnership_learner_moves_for_both_seats_and_opponents_never_touch_them():
    seats_moved = set()
    calls = []

    class Recorder(RandomAgent):
        def act(self, observation, env=None, agent=None):
            calls.append(agent)
            return super().act(observation)

    env = SingleAgentEnv("vint_v0", seats="NS", opponents=Recorder(seed=1))
    obs, info = env.reset(seed=4)
    while True:
        seats_moved.add(info["seat"])
        assert np.array_equal(info["action_mask"].astype(bool), env.action_masks())
        obs, r, term, trunc, info = env.step(lowest_legal(env.action_masks()))
        if term or trunc:
            break
    assert seats_moved == {0, 2}
    assert set(calls) <= {"player_1", "player_3"} and calls


def test_masks_are_int8_zero_one_and_match_the_aec_env():
    env = SingleAgentEnv("vint_v0", seats=2, opponents="random")
    obs, info = env.reset(seed=8)
    for _ in range(3):
        while True:
            mask = info["action_mask"]
            assert isinstance(mask, np.ndarray) and mask.dtype == np.int8 and mask.shape == (88,)
            assert set(np.unique(mask)) <= {0, 1} and mask.sum() >= 1
            assert np.array_equal(np.flatnonzero(mask), env.aec.legal_actions())
            assert env.action_masks().dtype == bool
            assert obs.dtype == np.float32 and env.observation_space.contains(obs)
            obs, r, term, trunc, info = env.step(lowest_legal(mask))
            if term or trunc:
                assert info["action_mask"].dtype == np.int8 and info["action_mask"].sum() == 0
                assert not env.action_masks().any()
                break
        obs, info = env.reset()


def _trajectory(env, seed, episodes=3):
    out = []
    obs, info = env.reset(seed=seed)
    for _ in range(episodes):
        while True:
            out.append(obs.copy())
            obs, r, term, trunc, info = env.step(lowest_legal(info["action_mask"]))
            out.append(r)
            if term or trunc:
                break
        obs, info = env.reset()
    return out


def _same(a, b):
    return len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b))


def test_seeded_resets_reproduce_deals_and_opponent_choices():
    a = _trajectory(SingleAgentEnv("vint_v0", seats=1, opponents="random"), seed=21)
    b = _trajectory(SingleAgentEnv("vint_v0", seats=1, opponents="random"), seed=21)
    c = _trajectory(SingleAgentEnv("vint_v0", seats=1, opponents="random"), seed=22)
    assert _same(a, b)
    assert not _same(a, c)
    # Re-seeding the same env object reproduces too.
    env = SingleAgentEnv("vint_v0", seats=1, opponents="random")
    assert _same(_trajectory(env, seed=21), a)


def test_replayed_deal_is_the_given_deal():
    from vint_env.cards import parse_pbn
    env = SingleAgentEnv("vint_v0", seats=0, opponents="random")
    env.reset(seed=0, options={"deal": ONE_SUIT_EACH_CLUBS_EAST, "dealer": 2})
    assert env.aec.deal.hands == parse_pbn(ONE_SUIT_EACH_CLUBS_EAST)
    assert env.aec.deal.dealer == 2
    # Opponents S and E... dealer S calls first, then W; the learner N is to move third.
    assert [s for s, _ in env.aec.deal.calls] == [2, 3]


def test_rubber_episodes_sum_to_the_settlement():
    env = SingleAgentEnv("vint_v0", seats=1, opponents="random", episode="rubber", reward_scale=1.0)
    env.reset(seed=2)
    rng = np.random.default_rng(0)
    total, info, steps = play_out(env, lambda m: int(rng.choice(np.flatnonzero(m))))
    rubber = info["rubber"]
    ns, ew = (rubber["totals"][side]["total"] for side in ("NS", "EW"))
    assert total == ew - ns          # seat 1 is E/W
    assert rubber["over"] or truncated_after_max_deals(env)


def truncated_after_max_deals(env):
    return env.aec.deals_played >= env.aec.max_deals


def test_opponent_mapping_and_cheating_agents_get_the_env():
    seen = {}

    class Peeker(Agent):
        needs_env = True
        name = "peeker"

        def act(self, observation, env=None, agent=None):
            seen[agent] = env
            return lowest_legal(observation["action_mask"])

    peeker = Peeker()
    env = SingleAgentEnv("vint_v0", seats=0, opponents={1: peeker, 2: "random", 3: peeker})
    env.reset(seed=1)
    play_out(env, lowest_legal)
    assert set(seen) == {"player_1", "player_3"}
    assert all(e is env.aec for e in seen.values())


def test_bad_arguments_fail_loudly():
    with pytest.raises(ValueError, match="unknown game"):
        SingleAgentEnv("chess_v0")
    with pytest.raises(ValueError, match="seats"):
        SingleAgentEnv("vint_v0", seats=4)
    with pytest.raises(ValueError, match="seats"):
        SingleAgentEnv("vint_v0", seats="north")
    with pytest.raises(ValueError, match=r"no opponent given for seat\(s\) \[3\]"):
        SingleAgentEnv("vint_v0", seats=0, opponents={1: "random", 2: "random"})
    with pytest.raises(ValueError, match="illegal_action"):
        SingleAgentEnv("vint_v0", illegal_action="ignore")
    with pytest.raises(TypeError, match="opponent"):
        SingleAgentEnv("vint_v0", opponents=42)
    env = SingleAgentEnv("vint_v0")
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="not in the action space"):
        env.step(88)
    with pytest.raises(ValueError, match="not in the action space"):
        env.step("pass")


def test_illegal_action_terminates_with_penalty_or_raises():
    env = SingleAgentEnv("vint_v0", seats=0, illegal_reward=-2.0)
    env.reset(seed=0)
    illegal = int(np.flatnonzero(env.action_masks() == 0)[0])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        obs, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated) == (-2.0, True, False)
    assert "illegal action" in info["illegal_action"] and env.illegal_actions == 1
    assert any("illegal action" in str(w.message) for w in caught)
    with pytest.raises(RuntimeError):
        env.step(PASS)

    strict = SingleAgentEnv("vint_v0", seats=0, illegal_action="raise")
    strict.reset(seed=0)
    with pytest.raises(IllegalActionError, match=r"illegal action .* by player_0; legal actions"):
        strict.step(illegal)


def test_registered_ids_make_and_pass_gymnasiums_env_checker():
    assert "vint_env/Vint-v0" in REGISTERED_IDS
    for env_id in REGISTERED_IDS:
        env = gym.make(env_id, seats=1, opponents="random")
        with warnings.catch_warnings():     # check_env steps with unmasked random actions and renders headless
            warnings.filterwarnings("ignore", r".*illegal action .* the episode ends with reward", UserWarning)
            warnings.filterwarnings("ignore", r"render_mode='human': no window", UserWarning)
            check_env(env.unwrapped)
        obs, info = env.reset(seed=0)
        assert env.observation_space.contains(obs)
        env.close()
    for env_id, game in GYM_IDS.items():
        if env_id in REGISTERED_IDS:
            assert gym.make(env_id).unwrapped.aec.metadata["name"] == game


def test_render_passes_through_to_the_table():
    env = gym.make("vint_env/Vint-v0", render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert "Hands" in text and "N (player_0)" in text


def test_import_vint_env_stays_light():
    import subprocess
    import sys
    code = ("import sys, vint_env, gymnasium as gym; gym.make('vint_env/Vint-v0');"
            "heavy = [m for m in ('torch', 'ray', 'stable_baselines3', 'sb3_contrib', 'tianshou', 'torchrl')"
            " if m in sys.modules]; print(heavy); assert not heavy, heavy")
    subprocess.run([sys.executable, "-c", code], check=True)


def own_result(game, info, seat):
    """The raw result of ``seat`` from the AEC env's end-of-deal info."""
    if game == "solo_whist_v0":
        return info["payments"][seat]
    return info["points"] if seat % 2 == 0 else -info["points"]


@pytest.mark.parametrize("game", [g for g in ("vint_v0", "whist_v0", "solo_whist_v0")
                                  if importlib.util.find_spec(f"vint_env.envs.{g}")])
def test_every_game_gives_the_learner_its_own_result(game):
    rng = np.random.default_rng(1)
    for seat in range(4):
        env = SingleAgentEnv(game, seats=seat, opponents="random", reward_scale=1.0)
        env.reset(seed=seat)
        results = []
        for _ in range(25):
            total, info, _ = play_out(env, lambda m: int(rng.choice(np.flatnonzero(m))))
            assert total == own_result(game, info, seat)
            results.append(total)
            env.reset()
        assert any(r != 0 for r in results)


def test_solo_whist_has_no_partnership_learner():
    if importlib.util.find_spec("vint_env.envs.solo_whist_v0") is None:
        pytest.skip("solo_whist_v0 not present")
    with pytest.raises(ValueError, match="no fixed partnerships"):
        SingleAgentEnv("solo_whist_v0", seats="NS")


@pytest.mark.parametrize("game", ["vint_v0", "whist_v0"])
def test_rule_bot_opponents_by_name(game):
    if importlib.util.find_spec(f"vint_env.envs.{game}") is None:
        pytest.skip(f"{game} not present")
    env = SingleAgentEnv(game, seats="EW", opponents="rule", reward_scale=1.0)
    assert {type(env._opponent_spec[s]).__name__ for s in (0, 2)} != {"RandomAgent"}
    assert env._opponent_spec[0] is not env._opponent_spec[2]      # one bot per seat
    env.reset(seed=0)
    for _ in range(5):
        total, info, _ = play_out(env, lowest_legal)
        assert total == own_result(game, info, 1)
        env.reset()


def test_an_aec_env_instance_can_be_wrapped():
    from vint_env import vint_v0
    raw = vint_v0.raw_env(reward_scale=1.0, episode="rubber")
    env = SingleAgentEnv(raw, seats=2)
    assert env.aec is raw
    obs, info = env.reset(seed=0)
    assert obs.shape == (1102,)
    with pytest.raises(ValueError, match="need a game name"):
        SingleAgentEnv(vint_v0.raw_env(), reward_scale=2.0)
    with pytest.raises(TypeError, match="game must be"):
        SingleAgentEnv(object())


@pytest.mark.parametrize("game", [g for g in ("vint_v0", "whist_v0", "solo_whist_v0")
                                  if importlib.util.find_spec(f"vint_env.envs.{g}")])
def test_every_agent_has_an_int8_mask_at_every_step_through_the_aec_adapters(game):
    """What TorchRL, RLlib and Tianshou read: observe() of every agent, every step."""
    from vint_env.wrappers.aec import ObservationKeysWrapper, ScalarInfoWrapper
    module = importlib.import_module(f"vint_env.envs.{game}")
    env = ScalarInfoWrapper(ObservationKeysWrapper(module.env(), {"observation": "observations"}))
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    while env.agents:
        masks = {a: env.observe(a)["action_mask"] for a in env.possible_agents}
        for agent, mask in masks.items():
            assert isinstance(mask, np.ndarray) and mask.dtype == np.int8
            assert set(np.unique(mask)) <= {0, 1}
            assert (mask.sum() > 0) == (agent == env.agent_selection and not env.terminations[agent])
        obs, _, term, trunc, info = env.last()
        assert set(obs) == {"observations", "action_mask"}
        assert all(np.isscalar(v) for v in info.values())
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
