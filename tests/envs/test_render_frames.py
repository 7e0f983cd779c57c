"""render_mode="rgb_array" and "human": frames of every game's table, no hidden card in a seat's view,
the pygame window and its text fallback, the recorded GIF of a deal."""

import re
import sys
import warnings

import numpy as np
import pytest
from card_game_checks import swap_hidden_cards
from test_vint2p import hidden_cards, relabel

from vint_env import games
from vint_env.cards import hand_cards
from vint_env.envs import picture

GAMES = [("vint", {}), ("whist", {}), ("solo_whist", {})] + [("vint2p", {"way": w}) for w in range(1, 6)]
IDS = [g + str(kw.get("way", "")) for g, kw in GAMES]


def advance(env, rng, steps=None, until_play=False):
    """Step ``env`` at random (passing often, so that deals reach play), ``steps`` live steps or until
    card play starts; returns False if the episode ended first."""
    n = 0
    while env.agents:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            return False
        if until_play and env.unwrapped.deal.phase == "play":
            return True
        if steps is not None and n == steps:
            return True
        legal = np.flatnonzero(env.observe(agent)["action_mask"])
        env.step(52 if 52 in legal and rng.random() < 0.6 else int(rng.choice(legal)))
        n += 1
    return False


@pytest.mark.parametrize("game, kwargs", GAMES, ids=IDS)
def test_a_frame_is_an_rgb_image_and_changes_when_a_card_is_played(game, kwargs):
    env = games.get(game).env(render_mode="rgb_array", viewer=0, **kwargs)
    assert env.metadata["render_modes"] == ["ansi", "rgb_array", "human"] and env.metadata["render_fps"] > 0
    rng = np.random.default_rng(5)
    played = 0
    for seed in range(30):
        env.reset(seed=seed)
        if not advance(env, rng, until_play=True):
            continue
        for _ in range(6):                      # cards from the viewer's hand and from hidden ones
            agent = env.agent_selection
            if env.terminations[agent]:         # Solo Whist stops once the result is certain
                break
            before = env.render()
            assert isinstance(before, np.ndarray) and before.dtype == np.uint8
            assert before.shape == (picture.HEIGHT, picture.WIDTH, 3)
            card = int(np.flatnonzero(env.observe(agent)["action_mask"])[0])
            assert card < 52
            env.step(card)
            assert not np.array_equal(before, env.render()), "the frame did not change after a card was played"
            played += 1
        if played >= 12:
            break
    assert played >= 12


def test_frames_show_what_the_text_shows():
    """Face up exactly the hands the viewer may see: a seat view differs from the open table,
    and the open table's frame changes when a hidden hand's cards change."""
    env = games.get("vint").env(render_mode="rgb_array")
    env.reset(seed=3)
    raw = env.unwrapped
    open_table = env.render()
    raw.viewer = 2
    south = env.render()
    assert not np.array_equal(open_table, south)
    raw.viewer = None
    raw.deal = swap_hidden_cards(raw.deal, 2, np.random.default_rng(0))
    assert not np.array_equal(open_table, env.render())


def _swap_for(game, deal, me, rng):
    """A copy of ``deal`` with two cards ``me`` cannot see exchanged, or None."""
    if game == "vint2p":
        hidden = hand_cards(hidden_cards(deal, me))
        if len(hidden) < 2:
            return None
        x, y = (int(c) for c in rng.choice(hidden, 2, replace=False))
        return relabel(deal, x, y)
    visible, seats = 0, None
    if getattr(deal, "turned_card_in_hand", False) and deal.turned_card is not None:
        visible = 1 << deal.turned_card          # face up on the table in Whist and Solo Whist
    if getattr(deal, "hand_shown", False):
        seats = [s for s in range(4) if s != me and s != deal.declarer]     # open misère
    return swap_hidden_cards(deal, me, rng, visible=visible, seats=seats)


@pytest.mark.parametrize("game, kwargs", GAMES, ids=IDS)
def test_no_hidden_card_in_a_seat_view_frame(game, kwargs):
    """Swapping cards the viewer cannot see never changes the viewer's frame, byte for byte."""
    rng = np.random.default_rng(17)
    players = (0, 1) if game == "vint2p" else (0, 1, 2, 3)
    env = games.get(game).env(render_mode="rgb_array", **kwargs)
    raw = env.unwrapped
    checked, phases = 0, set()
    for seed in range(4):
        env.reset(seed=seed)
        while advance(env, rng, steps=int(rng.integers(1, 9))):
            deal = raw.deal
            for me in players:
                other = _swap_for(game, deal, me, rng)
                if other is None:
                    continue
                raw.viewer = me
                mine = env.render()
                raw.deal = other
                assert np.array_equal(mine, env.render()), (game, deal.phase, me)
                raw.deal = deal
                checked += 1
                phases.add(deal.phase)
            raw.viewer = None
    assert checked >= 20 and "play" in phases


def test_human_mode_shows_the_frame_in_a_pygame_window(monkeypatch):
    pygame = pytest.importorskip("pygame")
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    env = games.get("whist").env(render_mode="human", viewer=2)
    env.reset(seed=1)                   # renders nothing yet: PettingZoo's human mode draws at each step
    assert env.render() is None
    window = env.unwrapped._window
    assert window.fallback is None
    window.fps = 1000                   # no waiting in the test
    shown = pygame.surfarray.array3d(pygame.display.get_surface()).swapaxes(0, 1)
    np.testing.assert_array_equal(shown, env.unwrapped.render_frame())
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    shown = pygame.surfarray.array3d(pygame.display.get_surface()).swapaxes(0, 1)
    np.testing.assert_array_equal(shown, env.unwrapped.render_frame())
    env.close()
    assert env.unwrapped._window is None


def test_human_mode_without_pygame_prints_the_text_and_says_why(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "pygame", None)          # import pygame -> ImportError
    env = games.get("vint").env(render_mode="human")
    env.reset(seed=2)
    with pytest.warns(UserWarning, match="pygame is not installed"):
        env.render()
    out = capsys.readouterr().out
    assert "Vint, dealer" in out and "Hands as dealt" in out
    with warnings.catch_warnings():
        warnings.simplefilter("error")                         # warned once, not at every step
        env.render()


def test_render_before_reset_draws_an_empty_table():
    env = games.get("solo_whist").raw_env(render_mode="rgb_array")
    frame = env.render()
    assert frame.shape == (picture.HEIGHT, picture.WIDTH, 3)


def test_save_gif_writes_the_frames(tmp_path):
    from PIL import Image
    env = games.get("vint2p").env(render_mode="rgb_array", way=4, viewer=0)
    env.reset(seed=0)
    frames = [env.render()]
    advance(env, np.random.default_rng(0), steps=3)
    frames.append(env.render())
    path = tmp_path / "deal.gif"
    picture.save_gif(frames, path, fps=4)
    with Image.open(path) as gif:
        assert gif.n_frames == 2 and gif.size == (picture.WIDTH, picture.HEIGHT)
        assert gif.info["duration"] == 250
    with pytest.raises(ValueError, match="no frames"):
        picture.save_gif([], path)


def test_vint_eval_video_records_a_board_as_the_match_plays_it(tmp_path, capsys):
    from PIL import Image
    from vint_env.evaluation.cli import main
    from vint_env.evaluation.deals import generate_boards
    from vint_env.evaluation.match import Table
    gif = tmp_path / "deal.gif"
    assert main(["video", "--game", "whist", "--a", "rule", "--b", "random", "--board", "2", "--viewer", "S",
                 "--out", str(gif)]) == 0
    table = Table("whist", "rule", "random", analysis=False)
    board = generate_boards(2, seed=0)[1]
    actions = len(table.play_board(board, 0).tables[0].replay[0].actions)
    with Image.open(gif) as image:
        assert image.n_frames == actions + 1 == 53          # one frame before the first card, one after each
    png = tmp_path / "frame.png"
    assert main(["video", "--game", "whist", "--board", "2", "--frame", "5", "--out", str(png)]) == 0
    with Image.open(png) as image:
        assert image.size == (picture.WIDTH, picture.HEIGHT)
    assert main(["video", "--out", str(tmp_path / "deal.mp4")]) == 2
    assert "writes an animated GIF (.gif) or one frame (.png)" in capsys.readouterr().err
    assert main(["video", "--game", "whist", "--frame", "99", "--out", str(png)]) == 2
    assert "this board has frames 1..53" in capsys.readouterr().err
    rubber = tmp_path / "rubber.png"                   # a whole rubber from the board: more than one deal
    assert main(["video", "--game", "whist", "--episode", "rubber", "--b", "random", "--out", str(rubber)]) == 0
    assert int(re.search(r"frame (\d+) of", capsys.readouterr().out).group(1)) > 2 * 53
    assert main(["video", "--game", "solo_whist", "--episode", "rubber", "--out", str(rubber)]) == 2
    assert "episode must be one of" in capsys.readouterr().err


def test_the_recipe_of_the_docs_writes_a_gif(tmp_path, monkeypatch, capsys):
    import pathlib
    import re
    from PIL import Image
    page = (pathlib.Path(__file__).resolve().parents[2] / "docs" / "envs" / "index.md").read_text()
    section = page.split("### Recording a deal to a GIF", 1)[1]
    code = re.findall(r"```python\n(.*?)```", section, flags=re.S)[0]
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "docs/envs/index.md", "exec"), {"__name__": "__recipe__"})
    assert capsys.readouterr().out == "53 frames\n"
    with Image.open(tmp_path / "whist_deal.gif") as gif:
        assert gif.n_frames == 53


def test_the_gymnasium_wrapper_passes_the_frames_through():
    import gymnasium as gym
    import vint_env.wrappers  # noqa: F401  (registers the ids)
    env = gym.make("vint_env/Vint-v0", render_mode="rgb_array")
    assert "rgb_array" in env.metadata["render_modes"]
    env.reset(seed=0)
    frame = env.render()                # through Gymnasium's render checker
    assert frame.shape == (picture.HEIGHT, picture.WIDTH, 3) and frame.dtype == np.uint8
    env.close()


def test_human_mode_without_a_display_prints_the_text(monkeypatch, capsys):
    """SDL's invisible fallback driver is not a window: without a display the text is printed, at full speed."""
    pytest.importorskip("pygame")
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER"):
        monkeypatch.delenv(name, raising=False)
    env = games.get("whist").env(render_mode="human")
    env.reset(seed=4)
    with pytest.warns(UserWarning, match="no display"):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    assert "Whist, dealer" in capsys.readouterr().out
    env.close()
