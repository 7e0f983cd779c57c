"""`run_match` and the league take Agent objects held in memory as well as specs: a network in memory plays
board for board as the same weights loaded from their checkpoint, with one process or several."""

import pytest

from vint_env import games
from vint_env.agents.base import RandomAgent
from vint_env.evaluation.deals import generate_boards
from vint_env.evaluation.league import run_league
from vint_env.evaluation.match import run_match
from vint_env.evaluation.players import AgentObjectError
from vint_env.evaluation.report import summarize

torch = pytest.importorskip("torch")

from vint_env.agents.learned.networks import build_network  # noqa: E402
from vint_env.agents.learned.policy import PPOAgent, save_checkpoint  # noqa: E402


def random_network(game="whist", seed=7):
    record = games.get(game)
    torch.manual_seed(seed)
    net = build_network("sparse", record.observation_size, record.num_actions, {"hidden_sizes": [32, 32]})
    net.train()            # as the trainer holds it: the frozen copy must play in eval mode all the same
    return record, net


def saved(tmp_path, record, net):
    return save_checkpoint(tmp_path / "net.pt", {
        "game": record.env_name, "env_kwargs": {}, "obs_size": record.observation_size,
        "num_actions": record.num_actions, "network": {"name": "sparse", "kwargs": {"hidden_sizes": [32, 32]}},
        "model": net.state_dict()})


def played(result):
    """Everything a match played, board by board (not the seconds the agents thought)."""
    return [(b.number, b.score, [(t.seats, t.points, t.details, t.replay) for t in b.tables])
            for b in result.boards]


@pytest.mark.parametrize("workers", [1, 2])
def test_a_network_in_memory_plays_board_for_board_as_its_checkpoint(tmp_path, workers):
    record, net = random_network()
    path = saved(tmp_path, record, net)
    boards = generate_boards(6, seed=3)
    from_file = run_match("whist", f"network:{path}", "rule", boards, seed=11, workers=workers, analysis=False,
                          chunk_size=2)
    agent = PPOAgent.from_network(net, "whist", name="network (update 5)")
    in_memory = run_match("whist", agent, "rule", boards, seed=11, workers=workers, analysis=False, chunk_size=2)
    assert played(in_memory) == played(from_file)
    assert sum(b.score != 0 for b in in_memory.boards) > 0          # the boards were really played
    assert in_memory.agent_a == "network (update 5)" and in_memory.agent_b == "rule"
    assert summarize(in_memory)["agent_a"] == "network (update 5)"
    # the frozen copy does not follow later changes to the network
    with torch.no_grad():
        for p in net.parameters():
            p.add_(1.0)
    assert played(run_match("whist", agent, "rule", boards, seed=11, workers=1, analysis=False)) == played(from_file)


def test_the_league_takes_agent_objects_and_names_them():
    record, net = random_network()
    boards = generate_boards(2, seed=1)
    league = run_league("whist", [PPOAgent.from_network(net, record, name="mine"), "random", " rule"], boards)
    assert league.agents == ["mine", "random", "rule"]
    assert {(m.agent_a, m.agent_b) for m in league.matches} == {("mine", "random"), ("mine", "rule"),
                                                                ("random", "rule")}
    with pytest.raises(ValueError, match="agents repeat"):
        run_league("whist", [RandomAgent(), "random"], boards)       # a RandomAgent is named "random"


def test_a_random_agent_object_plays_as_the_random_spec():
    boards = generate_boards(4, seed=2)
    spec = run_match("whist", "random", "rule", boards, seed=4, workers=1, analysis=False)
    obj = run_match("whist", RandomAgent(), "rule", boards, seed=4, workers=2, chunk_size=1, analysis=False)
    assert played(obj) == played(spec) and obj.agent_a == "random"


class Unpicklable(RandomAgent):
    name = "lambda-holder"

    def __init__(self):
        super().__init__()
        self.callback = lambda: None


def test_a_bad_agent_object_is_a_named_error():
    boards = generate_boards(1, seed=0)
    with pytest.raises(AgentObjectError, match=r"agent_b: expected an agent spec .* or an Agent object, got int"):
        run_match("whist", "rule", 5, boards, analysis=False)
    _, vint_net = random_network("vint")
    vint_agent = PPOAgent.from_network(vint_net, "vint", name="vint net")
    with pytest.raises(AgentObjectError, match=r"agent_a \(vint net\): this agent plays vint, not whist"):
        run_match("whist", vint_agent, "rule", boards, analysis=False)
    with pytest.raises(AgentObjectError, match=r"agent_a \(lambda-holder\): an Agent object must pickle"):
        run_match("whist", Unpicklable(), "rule", boards, analysis=False)
