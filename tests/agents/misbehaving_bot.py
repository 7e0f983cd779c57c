"""An outside bot that breaks the protocol on purpose, for tests/agents/test_program_agent.py.

    python misbehaving_bot.py MODE PIDDIR

writes its process id (and its child's, in mode ``child``) into PIDDIR, then plays legal actions until
its ``act`` number ``--after`` (default 1), where it misbehaves as MODE says: ``slow`` (sleeps),
``illegal`` (an action not legal), ``malformed`` (a line that is not JSON), ``crash`` (exits with 3),
``child`` (starts a child process that sleeps, then sleeps itself), ``mute`` (never answers hello),
``digits`` (an action of 5,000 digits), ``nested`` (a 60 KB line of nested brackets), ``daemon``
(at its first ``act``, starts a helper that leaves its process session by a double fork and ``setsid``,
as daemons do, writes its id into PIDDIR, and plays on), ``good`` (never misbehaves); ``daemon+illegal``:
both.
"""

import json
import os
import subprocess
import sys
import time


def daemonise(piddir: str) -> None:
    """A helper in a process session of its own, whose parent has exited (a daemon's double fork); it
    sleeps 60 s (so a test that fails leaves nothing behind for long)."""
    middle = os.fork()
    if middle == 0:
        os.setsid()
        helper = os.fork()
        if helper == 0:
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            time.sleep(60)
            os._exit(0)
        with open(os.path.join(piddir, f"{helper}.pid"), "w") as f:
            f.write(str(helper))
        os._exit(0)
    os.waitpid(middle, 0)


def main() -> None:
    modes, piddir = sys.argv[1].split("+"), sys.argv[2]
    after = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    with open(os.path.join(piddir, f"{os.getpid()}.pid"), "w") as f:
        f.write(str(os.getpid()))
    acts = 0
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "hello":
            if "mute" in modes:
                time.sleep(60)
            answer = {"type": "ready", "name": f"misbehaving ({sys.argv[1]})"}
        elif message["type"] == "act":
            acts += 1
            legal = message["legal"]
            if acts >= after and "slow" in modes:
                time.sleep(60)
            if acts >= after and "child" in modes:
                child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
                with open(os.path.join(piddir, f"{child.pid}.pid"), "w") as f:
                    f.write(str(child.pid))
                time.sleep(60)
            if acts == 1 and "daemon" in modes:
                daemonise(piddir)
            if acts >= after and "digits" in modes:
                sys.stdout.write('{"action": 1' + "0" * 5000 + "}\n")
                sys.stdout.flush()
                continue
            if acts >= after and "nested" in modes:
                sys.stdout.write('{"action": ' + "[" * 30_000 + "]" * 30_000 + "}\n")
                sys.stdout.flush()
                continue
            if acts >= after and "crash" in modes:
                sys.exit(3)
            if acts >= after and "malformed" in modes:
                sys.stdout.write("this is not json\n")
                sys.stdout.flush()
                continue
            action = next(a for a in range(60) if a not in legal) if acts >= after and "illegal" in modes else legal[0]
            answer = {"action": action}
        elif message["type"] == "quit":
            break
        else:
            continue
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
