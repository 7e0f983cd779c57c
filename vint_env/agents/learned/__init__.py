"""Learned agents: the networks (``networks``), PPO checkpoints and the agent that plays one (``policy``), the
critic-corrected rule bot (``residual``) and the baselines shipped with the package (``baseline``). These need
torch."""
