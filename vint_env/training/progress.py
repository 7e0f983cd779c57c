"""A run's progress: one bar per stage, or plain log lines.

A run goes through stages: the teacher's deals, cloning, each evaluation match (the untrained network's,
the clone's, the periodic ones, the final one), the PPO updates.  With bars (:class:`StageBars`), each
stage gets a bar of its own (tqdm, on stderr) opened when the stage starts and closed when it ends, so
its rate and ETA count that stage's work and time only; log lines (:meth:`Quiet.note`) are written
between the bars' redraws (``tqdm.write``), never over a bar.  Without them (:class:`Quiet`: ``--no-progress``,
or stderr not a terminal) the stages count silently and the notes are plain lines on stdout.

The trainer and its jobs take either as a ``progress`` sink::

    with progress.stage("teacher data", total=deals, unit="deal") as bar:
        for chunk in chunks:
            bar.update(len(chunk))
    with progress.section("final evaluation"):      # the matches' stages: "final evaluation vs rule" ...
        evaluate(...)
"""

from __future__ import annotations

import contextlib
import sys


class _Count:
    """A stage without a bar: it only counts."""

    def __init__(self, initial: int = 0):
        self.n = initial

    def update(self, n: int = 1) -> None:
        self.n += n

    def update_to(self, n: int) -> None:
        self.n = n

    def postfix(self, values: dict) -> None:
        pass


class Quiet:
    """The sink without bars: stages count silently, notes go to ``say`` (default: a line on stdout)."""

    def __init__(self, say=None):
        self.say = say if say is not None else (lambda msg: print(msg, flush=True))
        self.title = ""          # the section the stages now open in (:meth:`section`)
        self._open: list = []    # the stages open now, outermost first

    def name(self, stage: str) -> str:
        """A stage's full name: the section it opens in, then its own (``final evaluation vs rule``)."""
        return f"{self.title} {stage}" if self.title else stage

    @contextlib.contextmanager
    def section(self, title: str):
        """Stages opened inside are named ``<title> <stage>`` (an evaluation's matches)."""
        before, self.title = self.title, title
        try:
            yield
        finally:
            self.title = before

    @contextlib.contextmanager
    def stage(self, name: str, total: int | None, unit: str, initial: int = 0):
        """A stage of ``total`` ``unit`` (``initial`` of them done before: a resumed run); yields its bar,
        whose ``update(n)`` counts ``n`` more done, ``update_to(n)`` sets the count, ``postfix(dict)``
        shows figures beside it.  The bar is closed when the block ends, however it ends."""
        bar = self._open_bar(self.name(name), total, unit, initial)
        self._open.append(bar)
        try:
            yield bar
        finally:
            self._open.remove(bar)
            self._close_bar(bar)

    def postfix(self, values: dict) -> None:
        """Figures beside the innermost open stage's bar (the PPO updates': rate, returns, evaluation)."""
        if self._open:
            self._open[-1].postfix(values)

    def note(self, msg: str) -> None:
        """A log line."""
        self.say(msg)

    # -- what a sink with bars replaces
    def _open_bar(self, name: str, total: int | None, unit: str, initial: int):
        return _Count(initial)

    def _close_bar(self, bar) -> None:
        pass


class _TqdmBar:
    def __init__(self, bar):
        self.bar = bar

    @property
    def n(self) -> int:
        return self.bar.n

    def update(self, n: int = 1) -> None:
        self.bar.update(n)

    def update_to(self, n: int) -> None:
        self.bar.update(n - self.bar.n)

    def postfix(self, values: dict) -> None:
        self.bar.set_postfix(values, refresh=False)


class StageBars(Quiet):
    """The sink with bars: a tqdm bar per stage on ``file`` (stderr), notes written between redraws.

    A stage opened inside another (an evaluation between PPO updates) gets a bar below the outer one that
    vanishes when done; a stage opened alone leaves its finished bar on the screen."""

    def __init__(self, file=None, say=None):
        super().__init__(say)
        self.file = file if file is not None else sys.stderr

    def _open_bar(self, name: str, total: int | None, unit: str, initial: int):
        from tqdm import tqdm
        return _TqdmBar(tqdm(total=total, initial=initial, desc=name, unit=unit, unit_scale=unit == "step",
                             dynamic_ncols=True, file=self.file, leave=not self._open,
                             position=len(self._open)))

    def _close_bar(self, bar) -> None:
        bar.bar.close()

    def note(self, msg: str) -> None:
        from tqdm import tqdm
        if self._open:
            tqdm.write(msg, file=sys.stdout)     # clears the bars, writes the line, draws them again
            sys.stdout.flush()
        else:
            self.say(msg)


def progress_sink(show: bool | None, say=None) -> Quiet:
    """Bars when ``show`` is True, none when False; ``None``: bars when stderr is a terminal (a log file
    or a pipe gets plain lines)."""
    if show is None:
        show = sys.stderr.isatty()
    return StageBars(say=say) if show else Quiet(say)


__all__ = ["Quiet", "StageBars", "progress_sink"]
