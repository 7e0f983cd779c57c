"""`vint-serve`: play Vint, Whist, Solo Whist or two-player Vint against bots in the browser.

Examples::

    vint-serve                          # http://127.0.0.1:8000, open it in a browser
    vint-serve --port 8080 --idle-timeout 600

The page picks the game, your seat, your partner and the opponents (agent
specs of `vint-eval`: rule, random, pimc, baseline, ppo:PATH ...).  It
listens on 127.0.0.1 only unless --host says otherwise: a table runs the
agents you name, so do not expose it to a network you do not trust.
"""

from __future__ import annotations

import argparse
import sys

from ..agents.learned.threads import limit_torch_threads
from ..cli_args import add_version, positive


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="vint-serve", description=__doc__.split("\n\n")[0],
                                epilog=__doc__.split("\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    add_version(p)
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--idle-timeout", type=positive(float), default=1800.0,
                   help="seconds after which a table nobody plays is cleaned up (default 1800)")
    p.add_argument("--max-tables", type=positive(int), default=32, help="tables at once (default 32)")
    return p


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    limit_torch_threads(1)          # agents that run networks: one thread each (a decision at a time)
    try:
        import uvicorn
        from .app import create_app
    except ImportError as exc:
        print(f"vint-serve: error: {exc}; install the serve extra: pip install \"vint-env[serve]\"", file=sys.stderr)
        return 2
    app = create_app(idle_timeout=args.idle_timeout, max_tables=args.max_tables)
    print(f"vint-serve: open http://{args.host}:{args.port}/ in a browser (Ctrl-C stops the server)")
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0


if __name__ == "__main__":
    sys.exit(main())
