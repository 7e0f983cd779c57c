"""What the package reads from a user: regular files of bounded size, and bounded excerpts for messages.

A file a user names (``--deals``, ``--config``, a checkpoint) is opened without blocking and checked
to be a regular file before a byte is read, so ``/dev/zero`` or a FIFO is refused by name instead of
filling the memory or hanging; a file larger than its reader's bound is refused before it is read.
A message that quotes what it refuses quotes an excerpt, never a whole five-megabyte line.

>>> excerpt("x" * 100, 10)
"'xxxxxxxxxx...' (100 characters)"
>>> excerpt("short")
"'short'"
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

#: Characters of an input quoted in a message.
EXCERPT = 80


class InputFileError(ValueError):
    """A file a user named that is not a regular file, or is larger than its reader reads."""


def excerpt(value, limit: int = EXCERPT) -> str:
    """``repr(value)`` of a string cut to ``limit`` characters (saying how long it was), for messages;
    other values by their ``repr``, cut the same way."""
    if isinstance(value, str):
        if len(value) <= limit:
            return repr(value)
        return f"{value[:limit]!r}"[:-1] + f"...' ({len(value)} characters)"
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} characters)"


def open_regular(path, what: str) -> int:
    """A read-only descriptor of ``path``, checked to be a regular file (symlinks to one are fine);
    FileNotFoundError when nothing is there, :class:`InputFileError` for a folder, a device, a FIFO or a
    socket.  The file is opened without blocking (a FIFO with no writer does not hang) and checked on the
    open descriptor, so it cannot change between the check and the read."""
    path = Path(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise FileNotFoundError(errno.ENOENT, f"{what} {path} does not exist") from None
    except IsADirectoryError:
        raise InputFileError(f"{what} {path} is a folder, not a file") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        kind = ("a folder" if stat.S_ISDIR(mode) else "a FIFO (named pipe)" if stat.S_ISFIFO(mode)
                else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode)
                else "not a regular file")
        raise InputFileError(f"{what} {path} is {kind}, not a regular file")
    if hasattr(os, "set_blocking"):
        os.set_blocking(fd, True)
    return fd


def check_regular_file(path, what: str) -> Path:
    """``path`` if it is a regular file (see :func:`open_regular`), for readers that open it themselves."""
    os.close(open_regular(path, what))
    return Path(path)


def read_regular(path, what: str, max_bytes: int) -> bytes:
    """The bytes of the regular file ``path``, refused (:class:`InputFileError`) if it holds more than
    ``max_bytes``, before they are read."""
    fd = open_regular(path, what)
    with os.fdopen(fd, "rb") as f:
        size = os.fstat(fd).st_size
        if size > max_bytes:
            raise InputFileError(f"{what} {path} is larger than {max_bytes:,} bytes ({size:,})")
        data = f.read(max_bytes + 1)
    if len(data) > max_bytes:           # it grew while we read
        raise InputFileError(f"{what} {path} is larger than {max_bytes:,} bytes")
    return data
