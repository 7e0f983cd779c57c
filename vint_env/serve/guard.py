"""What `vint-serve` checks of every request before a handler sees it.

A server on 127.0.0.1 is reachable from every web page the person opens: a page on any site can send
it a "simple" cross-origin POST (``mode: "no-cors"``, a ``text/plain`` body), and a site whose name is
made to resolve to 127.0.0.1 (DNS rebinding) can even read the answers.  So:

- **Host**: a request must be addressed to the server by the name and port it serves (for a loopback
  address also ``localhost``, ``127.0.0.1`` and ``[::1]``, and any ``--allowed-host``), else 403:
  a rebinding site's requests carry its own name; a Host (or Origin) that does not parse strictly
  (:func:`split_host`: ASCII only, a port of ASCII digits) is a 403 too, never an error inside;
- **Origin**: a request a browser marks with an ``Origin`` must come from the server's own page
  (the same names), else 403: no other page drives a table;
- **POST** bodies must be ``application/json`` (415 otherwise: a cross-origin page cannot send that
  type without the browser asking first, which this server never answers yes), at most
  :data:`MAX_BODY` bytes (413), nested at most :data:`MAX_DEPTH` deep (400), checked before they are
  parsed.
"""

from __future__ import annotations

import ipaddress
import json
import re

from ..inputs import excerpt

#: The largest request body read (a table request is a few hundred bytes).
MAX_BODY = 16 * 1024
#: The deepest nesting of arrays and objects a request body may have.
MAX_DEPTH = 8

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")


class Refused(Exception):
    """A request the guard refuses: ``status`` and a message saying why."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


def _is_loopback(host: str) -> bool:
    name = host.strip("[]")
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


class MalformedHost(ValueError):
    """A host text that is not ``name[:port]``: a name of letters, digits, dots and dashes (ASCII) or a
    bracketed IPv6 address, and a port of one to five ASCII digits."""


_NAME = re.compile(r"[a-z0-9_]([a-z0-9_.-]{0,252})")
_IPV6 = re.compile(r"\[[0-9a-f:.]{2,45}\]")
_PORT = re.compile(r"[0-9]{1,5}")


def split_host(text: str, default_port: int | None = None) -> tuple[str, int | None]:
    """``"name:port"`` (``"[::1]:8000"``) -> ``("name", port)``, lower case; ``default_port`` when none is
    written; a bare IPv6 address is put in brackets.  Parsed strictly (:class:`MalformedHost` for anything
    else: a port of other digits than ASCII's, ``²`` or ``٣``, an empty or odd name, blanks inside)."""
    if not isinstance(text, str) or not text.isascii():
        raise MalformedHost(f"a host name and port are ASCII text, got {excerpt(text, 60)}")
    text = text.strip().lower()
    if text.startswith("["):
        name, _, rest = text.partition("]")
        name += "]"
        if rest and not rest.startswith(":"):
            raise MalformedHost(f"{excerpt(text, 60)}: expected [ADDRESS]:PORT")
        port = rest[1:] if rest else None
    elif text.count(":") > 1:
        name, port = f"[{text}]", None
    else:
        name, colon, port = text.partition(":")
        port = port if colon else None
    if not (_NAME.fullmatch(name) or _IPV6.fullmatch(name)):
        raise MalformedHost(f"{excerpt(text, 60)}: not a host name")
    if port is None:
        return name, default_port
    if not _PORT.fullmatch(port):
        raise MalformedHost(f"{excerpt(text, 60)}: the port is one to five ASCII digits")
    return name, int(port)


def allowed_hosts(host: str, port: int, extra=()) -> frozenset[tuple[str, int]]:
    """The ``(name, port)`` a request may address (its ``Host``) to a server listening on ``host``:``port``:
    the address itself, the loopback names when it listens on a loopback or on every address, and the
    ``extra`` names (``--allowed-host``, with their own port or the server's)."""
    names = set()
    everywhere = host in ("0.0.0.0", "::", "")
    if not everywhere:
        names.add(split_host(host, port))
    if everywhere or _is_loopback(host):
        names.update(split_host(n, port) for n in LOOPBACK_NAMES)
    names.update(split_host(n, port) for n in extra)
    return frozenset(names)


def _names(allowed) -> str:
    return ", ".join(sorted(f"{n}:{p}" for n, p in allowed))


def _addressed(text: str, allowed: frozenset) -> bool:
    """``text`` (``name[:port]``, no port meaning 80) is one of ``allowed``; a malformed one is not."""
    try:
        return split_host(text, 80) in allowed
    except MalformedHost:
        return False


def check_host(host_header: str | None, allowed: frozenset) -> None:
    """403 unless the request's ``Host`` is one of ``allowed`` (no port written means 80; a malformed one
    never is)."""
    if not _addressed(host_header or "", allowed):
        raise Refused(403, f"this server answers requests addressed to {_names(allowed)}, not "
                           f"{excerpt(host_header or '', 60)} (start it with --allowed-host NAME to add a name)")


def check_origin(origin: str | None, allowed: frozenset) -> None:
    """403 unless the request has no ``Origin`` or it is this server's own page (``http://`` and an
    allowed name)."""
    if origin is None:
        return
    text = origin.strip().lower()
    if not (origin.isascii() and text.startswith("http://") and _addressed(text[len("http://"):], allowed)):
        raise Refused(403, f"requests from another page ({excerpt(origin, 60)}) are refused: "
                           "only this server's own page may use its API")


def check_content_type(content_type: str | None) -> None:
    """415 unless the body is declared ``application/json``."""
    kind = (content_type or "").split(";", 1)[0].strip().lower()
    if kind != "application/json":
        raise Refused(415, f"a request body must be sent as application/json, not {excerpt(kind or 'none', 40)}")


def json_depth(raw: bytes) -> int:
    """The deepest nesting of arrays and objects in JSON text (strings skipped; malformed text counted
    as it stands)."""
    depth = deepest = 0
    in_string = escaped = False
    for b in raw:
        if in_string:
            if escaped:
                escaped = False
            elif b == 0x5C:             # backslash
                escaped = True
            elif b == 0x22:             # quote
                in_string = False
        elif b == 0x22:
            in_string = True
        elif b in (0x5B, 0x7B):         # [ {
            depth += 1
            deepest = max(deepest, depth)
        elif b in (0x5D, 0x7D):
            depth -= 1
    return deepest


def parse_body(raw: bytes):
    """The JSON value of a request body already bounded in size ({} for an empty one); 400 if it is not
    JSON, holds NaN or Infinity, or is nested deeper than :data:`MAX_DEPTH`."""
    if not raw.strip():
        return {}
    if json_depth(raw) > MAX_DEPTH:
        raise Refused(400, f"the request body is nested deeper than {MAX_DEPTH} levels")

    def constant(name):
        raise ValueError(f"{name} is not a JSON number")
    try:
        return json.loads(raw, parse_constant=constant)
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError, ValueError) as exc:
        raise Refused(400, f"the request body is not JSON: {excerpt(str(exc), 120)}") from None
