"""A person at the terminal, behind the same agent interface as the bots."""

from __future__ import annotations

from .. import games
from .base import Agent, legal_actions


class HumanAgent(Agent):
    """Shows the table (the env's ``render`` from this seat when it can) and
    the legal actions by name, and reads an action as text, parsed by the
    game's record ("SA", "H10", "pass", "3NT", "solo", "trump H") or as an
    action id.  Repeats the question on bad input."""

    name = "human"
    needs_env = True   # only to render the table; decisions are the person's

    def __init__(self, game: games.Game | str = "vint", input_fn=input, print_fn=print):
        record = games.get(game)
        self.game = record.name
        self.input = input_fn
        self.print = print_fn
        self.text, self.parse = record.action_text, record.parse_action

    def act(self, observation: dict, env=None, agent: str | None = None) -> int:
        legal = [int(a) for a in legal_actions(observation)]
        if env is not None and hasattr(env.unwrapped, "viewer") and agent is not None:
            raw = env.unwrapped
            old_viewer, old_mode = raw.viewer, raw.render_mode
            raw.viewer, raw.render_mode = int(agent.rsplit("_", 1)[-1]), "ansi"
            try:
                self.print(raw.render())
            finally:
                raw.viewer, raw.render_mode = old_viewer, old_mode
        names = {a: self._text(a) for a in legal}
        while True:
            answer = self.input(f"{agent or 'you'} to act; legal: {' '.join(names.values())}\n> ").strip()
            try:
                action = int(answer) if answer.isdigit() else self.parse(answer)
            except ValueError as exc:
                self.print(f"not understood: {exc}")
                continue
            if action in legal:
                return action
            self.print(f"{answer!r} is not legal now")

    def _text(self, action: int) -> str:
        try:
            return self.text(action)
        except ValueError:
            return str(action)
