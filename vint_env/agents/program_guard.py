"""The guard of an outside bot: runs it, and takes it and everything it started down with the harness.

    python -I program_guard.py HARNESS_PID PROGRAM [ARGS ...]

:mod:`~vint_env.agents.program` starts this file (by its path: standard library only, nothing of the
package is imported) as the leader of a new process group, with the pipes the bot will use.  The guard
starts the bot in its group with those pipes, closes its own copies (so the bot's end of output is
the harness's end of file) and waits for it, then exits with its exit status.  The harness ends the
bot by killing the group.  If the harness dies first (killed with its worker process), Linux sends the
guard SIGTERM (``PR_SET_PDEATHSIG``), and the guard kills the group: the bot and any process the bot
started, which a plain parent-death signal on the bot alone would leave running.
"""

import os
import signal
import subprocess
import sys


def _kill_group(*_args) -> None:
    os.killpg(0, signal.SIGKILL)


def main(argv: list[str]) -> int:
    harness, command = int(argv[0]), argv[1:]
    signal.signal(signal.SIGTERM, _kill_group)
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)      # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    if os.getppid() != harness:         # the harness died before the signal was asked for
        _kill_group()
    try:
        bot = subprocess.Popen(command)
    except OSError as exc:
        print(f"vint-env: could not start the bot {command[0]}: {exc.strerror or exc}", file=sys.stderr)
        return 127
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)                    # the bot alone holds the pipes now
    os.dup2(null, 1)
    code = bot.wait()
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
