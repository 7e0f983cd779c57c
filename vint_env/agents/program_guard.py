"""The guard of an outside bot: runs it, and takes it and everything it started down with the match.

    python -I program_guard.py HARNESS_PID PROGRAM [ARGS ...]

:mod:`~vint_env.agents.program` starts this file (by its path: standard library only, nothing of the
package is imported) as the leader of a new process group, with the pipes the bot will use.  The guard
starts the bot in its group with those pipes, closes its own copies (so the bot's end of output is
the harness's end of file) and waits for it.

Everything the bot started ends with it.  On Linux the guard is a *child subreaper*
(``PR_SET_CHILD_SUBREAPER``): a process the bot started that leaves its parent (a daemon's double
fork) is adopted by the guard, not by init, and a process that leaves the process group too
(``setsid``) is still the guard's descendant.  When the bot exits, and when the guard gets SIGTERM
(the harness ending the bot, or, by ``PR_SET_PDEATHSIG``, the harness dying), the guard kills every
descendant it finds in ``/proc``, again until none is left, then its process group, itself last.

Elsewhere (no ``/proc``, no subreaper) the guard kills its process group only: a process that left the
group (``setsid``) and its parent is not found there.  And a guard killed by SIGKILL cleans nothing:
the harness sends SIGTERM first (SIGKILL to the group only after that).
"""

import os
import signal
import subprocess
import sys
import time

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36


def _descendants(root: int) -> list[int]:
    """The processes below ``root`` (children, theirs ...) as ``/proc`` lists them now; [] without ``/proc``."""
    children: dict[int, list[int]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                parent = int(f.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue                        # gone meanwhile
        children.setdefault(parent, []).append(int(entry))
    found, stack = [], [root]
    while stack:
        for child in children.get(stack.pop(), ()):
            found.append(child)
            stack.append(child)
    return found


def _reap() -> None:
    """Collect every child of the guard that has ended (the bot's orphans are its children too)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def end_descendants() -> None:
    """Kill every descendant of the guard, again until none is left (a process forking meanwhile has its
    child killed on the next round; a killed process forks no more)."""
    me = os.getpid()
    for _ in range(200):
        found = _descendants(me)
        if not found:
            return
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        _reap()
        time.sleep(0.005)


def _end_everything(*_args) -> None:
    end_descendants()
    os.killpg(0, signal.SIGKILL)            # the group (what /proc could not show), the guard last


def main(argv: list[str]) -> int:
    harness, command = int(argv[0]), argv[1:]
    signal.signal(signal.SIGTERM, _end_everything)
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
            libc.prctl(PR_SET_CHILD_SUBREAPER, 1)
        except (OSError, AttributeError):
            pass
    if os.getppid() != harness:         # the harness died before the signal was asked for
        _end_everything()
    try:
        bot = subprocess.Popen(command)
    except OSError as exc:
        print(f"vint-env: could not start the bot {command[0]}: {exc.strerror or exc}", file=sys.stderr)
        return 127
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)                    # the bot alone holds the pipes now
    os.dup2(null, 1)
    code = bot.wait()
    end_descendants()                   # what the bot left running ends with it
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
