"""Where `vint-serve` plays its tables: worker threads the process never waits for when it stops.

A request that sets bots thinking (a move, a new table) runs in a worker thread while the event loop
answers other requests.  asyncio's own workers (``asyncio.to_thread``) are waited for when the loop
closes, so a server asked to stop (SIGTERM, Ctrl-C) would wait for every bot's decision under way.
Here each job runs in a daemon thread instead: on shutdown the tables are stopped (no bot starts
another decision) and the process ends without waiting for a decision still being made (a table holds
nothing that outlives the process).  At most :data:`MAX_WORKERS` jobs run at once; more wait their turn
in the event loop, where waiting costs nothing.
"""

from __future__ import annotations

import asyncio
import threading

#: The most jobs run at once (as asyncio's default pool: a request past it waits for a free worker).
MAX_WORKERS = 32


class Workers:
    """Runs blocking jobs for the event loop (``await workers.run(fn, *args)``) in daemon threads."""

    def __init__(self, limit: int = MAX_WORKERS):
        self.limit = limit
        self._slots: tuple | None = None   # (the event loop, its semaphore): a semaphore serves one loop

    async def run(self, fn, *args):
        """``fn(*args)`` in a daemon thread: its result, or its exception raised here."""
        loop = asyncio.get_running_loop()
        if self._slots is None or self._slots[0] is not loop:
            self._slots = (loop, asyncio.Semaphore(self.limit))
        async with self._slots[1]:
            future = loop.create_future()

            def settle(outcome, failed):
                if not future.done():       # (the request may have been cancelled meanwhile)
                    (future.set_exception if failed else future.set_result)(outcome)

            def job():
                try:
                    outcome, failed = fn(*args), False
                except BaseException as exc:        # handed to the request, which answers it
                    outcome, failed = exc, True
                try:
                    loop.call_soon_threadsafe(settle, outcome, failed)
                except RuntimeError:        # the loop is closed: the server stopped, nobody waits
                    pass

            threading.Thread(target=job, name="vint-serve table", daemon=True).start()
            return await future
