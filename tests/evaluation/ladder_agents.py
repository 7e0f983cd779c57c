"""Agents for the ladder's tests (loaded as ``py:ladder_agents:NAME``)."""

from vint_env.agents import RandomAgent

#: decisions left before :class:`Stopping` raises KeyboardInterrupt (as a Ctrl-C would stop a ladder)
DECISIONS_LEFT = [10 ** 9]


class Stopping(RandomAgent):
    name = "stopping"

    def act(self, observation, env=None, agent=None):
        DECISIONS_LEFT[0] -= 1
        if DECISIONS_LEFT[0] < 0:
            raise KeyboardInterrupt
        return super().act(observation, env, agent)


def stopping(game):
    return Stopping()
