"""Shared by the vint-serve tests: a finished deal replayed through the env alone (the rules' result)."""

from vint_env import games
from vint_env.evaluation.deals import generate_board
from vint_env.evaluation.tables import make_env, reset_options


def replay_points(game: str, seed: int, number: int, actions, options=None) -> tuple[list[float], tuple]:
    """Deal ``number`` of a table with ``seed`` replayed with the recorded ``actions`` (``[player, text, is_card]``):
    the env's points per player and the game's own deal result (in its raw units)."""
    record = games.get(game)
    env = make_env(record, "deal", **(options or {}))
    env.reset(seed=seed * 1000 + number, options=reset_options(record, generate_board(seed, number)))
    points = [0.0] * len(env.possible_agents)
    moves = iter(actions)
    for name in env.agent_iter():
        _, reward, term, trunc, _ = env.last()
        points[env.possible_agents.index(name)] += reward
        if term or trunc:
            env.step(None)
            continue
        player, text, _ = next(moves)
        assert env.possible_agents[player] == name, "the record's actor is the env's"
        env.step(record.parse_action(text))
    assert next(moves, None) is None, "every recorded action was played"
    return points, record.deal_result(env.unwrapped.deal).points
