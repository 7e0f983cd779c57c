"""How `vint-serve` reads a request off a connection: uvicorn's HTTP/1.1 protocol (h11) with read timeouts.

uvicorn closes a connection that sits idle between requests, but waits without end for a request that
is half sent: a page (or anything on the machine) could hold hundreds of connections open by sending a
request's headers, or its body, a byte at a time.  :func:`timed_protocol` gives the protocol two
deadlines, and a connection that misses one is closed:

- **headers**: a request's line and headers must all arrive within ``header_seconds`` of the connection
  being made (or of the previous answer on it);
- **body**: its body within ``body_seconds`` of its headers.

A request whose body is cut off so gets nothing more (the app sees the client gone: a 408 that is
never sent, no error in the log).
"""

from __future__ import annotations

import logging

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

log = logging.getLogger("vint_env.serve")

#: Seconds a request's line and headers, and then its body, may take to arrive, by default.
DEFAULT_HEADER_SECONDS = 10.0
DEFAULT_BODY_SECONDS = 10.0


def timed_protocol(header_seconds: float = DEFAULT_HEADER_SECONDS,
                   body_seconds: float = DEFAULT_BODY_SECONDS) -> type[H11Protocol]:
    """uvicorn's h11 protocol class with these read timeouts (``uvicorn.run(app, http=...)``)."""
    for name, value in (("header_seconds", header_seconds), ("body_seconds", body_seconds)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < float("inf"):
            raise ValueError(f"{name} must be a finite positive number of seconds, got {value!r}")

    class TimedH11Protocol(_TimedH11Protocol):
        pass
    TimedH11Protocol.header_seconds = float(header_seconds)
    TimedH11Protocol.body_seconds = float(body_seconds)
    return TimedH11Protocol


class _TimedH11Protocol(H11Protocol):
    """One connection, its request read under the two deadlines of the module docstring."""

    header_seconds = DEFAULT_HEADER_SECONDS
    body_seconds = DEFAULT_BODY_SECONDS

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._read_timer = None
        self._waiting_for = None            # "headers", "body" or None (the request is in)

    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        self._expect("headers")

    def on_response_complete(self) -> None:
        self._expect("headers")              # the next request on the connection (it may be in already)
        super().on_response_complete()
        if self.transport.is_closing():
            self._expect(None)

    def handle_events(self) -> None:
        super().handle_events()
        state = self.conn.their_state
        if state is h11.SEND_BODY:
            if self._waiting_for != "body":
                self._expect("body")
        elif state is not h11.IDLE:          # the request is in (or the connection is ending)
            self._expect(None)

    def connection_lost(self, exc) -> None:
        self._expect(None)
        super().connection_lost(exc)

    def _expect(self, part: str | None) -> None:
        if self._read_timer is not None:
            self._read_timer.cancel()
            self._read_timer = None
        self._waiting_for = part
        if part is not None:
            seconds = self.header_seconds if part == "headers" else self.body_seconds
            self._read_timer = self.loop.call_later(seconds, self._late, part)

    def _late(self, part: str) -> None:
        self._read_timer = None
        wanted = h11.IDLE if part == "headers" else h11.SEND_BODY
        if self._waiting_for == part and self.conn.their_state is wanted and not self.transport.is_closing():
            log.info("closed a connection from %s: its request's %s did not arrive in time", self.client, part)
            self.transport.close()
