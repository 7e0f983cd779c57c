"""`vint-eval video`: one board of a match, as one of its tables played it, recorded to an animated GIF
(or one frame of it to a PNG).

The frames are the envs' ``rgb_array`` renders (:mod:`vint_env.envs.picture`),
one before the first action and one after each; the seats, seeds and deal are
those of :class:`~.match.Table` for the same ``--seed`` and board, so the video
shows exactly what `vint-eval match` played at that table.
"""

from __future__ import annotations

from pathlib import Path

from ..atomic import atomic_write
from .. import games
from ..agents.registry import load_agent
from ..envs.picture import save_gif
from ..games import Game
from .deals import Board
from .tables import make_env, reset_options
from .match import derive_seed, play_table, seat_plans


class FrameRecorder:
    """A recorder for :func:`~.match.play_table` that keeps the table's frame after every action."""

    def __init__(self):
        self.frames = []

    def before(self, raw) -> None:
        if not self.frames:
            self.frames.append(raw.render_frame())

    def after(self, raw, seat: int, action: int) -> None:
        self.frames.append(raw.render_frame())


def record_board(game: Game | str, spec_a: str, spec_b: str, board: Board, seed: int = 0, table: int = 0,
                 viewer: int | None = None, episode: str = "deal", env_options: dict | None = None) -> list:
    """The frames of ``board`` at ``table`` (0: team A in the first seats) of a match with ``seed``.

    ``game``: its record or its name; ``viewer``: the seat (player in two-player Vint) whose view the
    frames show, None: all hands.
    """
    record = games.get(game)
    plans = seat_plans(record.format)
    if not 0 <= table < len(plans):
        raise ValueError(f"{record.name}: table index (0-based) must be 0..{len(plans) - 1}, got {table}")
    env = make_env(record, episode, **(env_options or {}), viewer=viewer)
    agents = {team: [load_agent(spec, game=record) for _ in range(4)] for team, spec in (("A", spec_a), ("B", spec_b))}
    seat_agents = [agents[team][seat] for seat, team in enumerate(plans[table])]
    recorder = FrameRecorder()
    play_table(env, seat_agents, reset_options(record, board), derive_seed(seed, board.number, 0),
               [derive_seed(seed, board.number, table + 1, s) for s in range(4)], recorder)
    return recorder.frames


def check_output(path: Path) -> Path:
    """``path`` if it names a GIF (the whole board) or a PNG (one frame), else ValueError (before any play)."""
    path = Path(path)
    if path.suffix.lower() not in (".gif", ".png"):
        raise ValueError(f"--out {path}: vint-eval video writes an animated GIF (.gif) or one frame (.png); "
                         "for other formats record the env's rgb_array frames with your own video writer")
    return path


def write_video(path: Path, frames: list, fps: float, frame: int | None = None) -> None:
    """``frames`` to ``path``: a GIF (Pillow, no ffmpeg), or frame number ``frame`` (1-based,
    default the last) as a PNG."""
    path = check_output(path)
    if path.suffix.lower() == ".gif":
        save_gif(frames, path, fps=fps)
        return
    from PIL import Image
    k = len(frames) if frame is None else frame
    if not 1 <= k <= len(frames):
        raise ValueError(f"--frame {k}: this board has frames 1..{len(frames)}")
    with atomic_write(path, shared=True) as f:
        Image.fromarray(frames[k - 1]).save(f, format="PNG")
