"""An outside bot that breaks the protocol on purpose, for tests/agents/test_program_agent.py.

    python misbehaving_bot.py MODE PIDDIR

writes its process id (and its child's, in mode ``child``) into PIDDIR, then plays legal actions until
its ``act`` number ``--after`` (default 1), where it misbehaves as MODE says: ``slow`` (sleeps),
``illegal`` (an action not legal), ``malformed`` (a line that is not JSON), ``crash`` (exits with 3),
``child`` (starts a child process that sleeps, then sleeps itself), ``mute`` (never answers hello),
``good`` (never misbehaves).
"""

import json
import os
import subprocess
import sys
import time


def main() -> None:
    mode, piddir = sys.argv[1], sys.argv[2]
    after = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    with open(os.path.join(piddir, f"{os.getpid()}.pid"), "w") as f:
        f.write(str(os.getpid()))
    acts = 0
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "hello":
            if mode == "mute":
                time.sleep(60)
            answer = {"type": "ready", "name": f"misbehaving ({mode})"}
        elif message["type"] == "act":
            acts += 1
            legal = message["legal"]
            if acts >= after and mode == "slow":
                time.sleep(60)
            if acts >= after and mode == "child":
                child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
                with open(os.path.join(piddir, f"{child.pid}.pid"), "w") as f:
                    f.write(str(child.pid))
                time.sleep(60)
            if acts >= after and mode == "crash":
                sys.exit(3)
            if acts >= after and mode == "malformed":
                sys.stdout.write("this is not json\n")
                sys.stdout.flush()
                continue
            action = next(a for a in range(60) if a not in legal) if acts >= after and mode == "illegal" else legal[0]
            answer = {"action": action}
        elif message["type"] == "quit":
            break
        else:
            continue
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
