"""Collectors as Ray actors: a local Ray with two collector actors plays the same run as two processes."""

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("ray")

from vint_env.training.config import load_config
from vint_env.training.trainer import Trainer

TINY = ["game=whist_v0", "env_source=vector", "network=sparse", "network_kwargs={hidden_sizes: [16, 16]}",
        "num_envs=4", "num_steps=26", "opponent_mix={self: 0.6, pool: 0.2, rule: 0.2}", "pool_size=2",
        "pool_add_every=1", "update_epochs=1", "num_minibatches=2", "eval_opponents=[]", "collectors=2",
        "total_timesteps=1000", "max_minutes=0"]


def test_two_ray_actors_collect_what_two_processes_do(tmp_path):
    import ray
    try:
        on_ray = Trainer(load_config(None, TINY + ["ray_address=local"]), tmp_path / "ray")
        on_ray.train()
    finally:
        ray.shutdown()
    local = Trainer(load_config(None, TINY), tmp_path / "local")
    local.train()
    assert on_ray.state.update == local.state.update >= 2
    assert on_ray.state.global_step == local.state.global_step == on_ray.state.update * 2 * 4 * 52
    for a, b in zip(on_ray.net.state_dict().values(), local.net.state_dict().values()):
        assert torch.equal(a, b)
