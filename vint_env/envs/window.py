"""``render_mode="human"``: the table's frame in a pygame window, as PettingZoo's classic envs show theirs.

pygame is optional (``pip install 'vint-env[render]'``).  Without pygame, or
where pygame finds no display (a server, a CI job), the window falls back to
printing the text table (what ``render_mode="ansi"`` returns), with one warning
saying why, so that a script written for a desktop still runs headless.
"""

from __future__ import annotations

import os
import warnings

#: SDL video drivers that draw nowhere visible (used without a display unless asked for by SDL_VIDEODRIVER).
HEADLESS_DRIVERS = ("offscreen", "dummy")


class TableWindow:
    """One window per env, opened at the first frame, ticking at ``fps`` frames a second."""

    def __init__(self, title: str, fps: float):
        self.title = title
        self.fps = fps
        self._pygame = None
        self._screen = None
        self._clock = None
        self.fallback: str | None = None          # why there is no window, once known

    def _open(self, size) -> None:
        os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
        try:
            import pygame
        except ImportError:
            self.fallback = "pygame is not installed (pip install 'vint-env[render]')"
        else:
            try:
                pygame.display.init()
                driver = pygame.display.get_driver()
                # SDL falls back to an invisible window without a display; only on request is that wanted
                if driver in HEADLESS_DRIVERS and os.environ.get("SDL_VIDEODRIVER") != driver:
                    pygame.display.quit()
                    raise pygame.error(f"only SDL's {driver!r} video driver, no screen")
                self._screen = pygame.display.set_mode(size)
            except pygame.error as exc:
                self.fallback = f"pygame found no display ({exc})"
            else:
                pygame.display.set_caption(self.title)
                self._pygame = pygame
                self._clock = pygame.time.Clock()
                return
        warnings.warn(f"render_mode='human': no window, {self.fallback}; printing the text table instead "
                      "(render_mode='ansi' returns it, 'rgb_array' the frame)", stacklevel=4)

    def show(self, frame, text) -> None:
        """Show ``frame`` (an ``(H, W, 3)`` uint8 array); without a window print ``text()``."""
        if self._screen is None and self.fallback is None:
            self._open((frame.shape[1], frame.shape[0]))
        if self.fallback is not None:
            print(text())
            return
        pygame = self._pygame
        pygame.event.pump()
        surface = pygame.surfarray.make_surface(frame.swapaxes(0, 1))
        self._screen.blit(surface, (0, 0))
        pygame.display.flip()
        self._clock.tick(self.fps)

    def close(self) -> None:
        if self._screen is not None:
            self._pygame.display.quit()
            self._screen = None
