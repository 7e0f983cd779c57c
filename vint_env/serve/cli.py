"""`vint-serve`: play Vint, Whist, Solo Whist or two-player Vint against bots in the browser.

Examples::

    vint-serve                          # http://127.0.0.1:8000, open it in a browser
    vint-serve --port 8080 --idle-timeout 600
    vint-serve --agents-dir runs/whist/checkpoints    # your own checkpoints: network:runs/whist/checkpoints/latest.pt

The page picks the game, your seat, your partner and the opponents (agent
specs of `vint-eval`: rule, random, pimc, baseline, and network:PATH ... of a
file inside an --agents-dir).  A request may name no other code or file: no
py: spec, no path outside the --agents-dir folders; every bot's decision is
bounded by --decision-seconds; requests must be addressed to this server's
own address, from its own page.  It listens on 127.0.0.1 only unless --host
says otherwise.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys

from ..agents.learned.threads import limit_torch_threads
from ..cli_args import add_version, positive
from .agents import DEFAULT_DECISION_SECONDS
from .connections import DEFAULT_BODY_SECONDS, DEFAULT_HEADER_SECONDS

#: Seconds requests under way get to finish when the server is asked to stop.
GRACE = 2


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="vint-serve", description=__doc__.split("\n\n")[0],
                                epilog=__doc__.split("\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    add_version(p)
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--idle-timeout", type=positive(float), default=1800.0,
                   help="seconds after which a table nobody plays is cleaned up (default 1800)")
    p.add_argument("--max-tables", type=positive(int), default=32, help="tables at once (default 32)")
    p.add_argument("--agents-dir", action="append", default=[], metavar="DIR",
                   help="a folder whose checkpoints a table may seat (network:PATH, bidder:PATH, baseline:DIR inside "
                        "it); repeatable; without it, only the built-in bots and the shipped baselines")
    p.add_argument("--decision-seconds", type=positive(float), default=DEFAULT_DECISION_SECONDS,
                   help=f"seconds a bot's decision may take (pimc's time option is capped to it; default "
                        f"{DEFAULT_DECISION_SECONDS:g})")
    p.add_argument("--header-timeout", type=positive(float), default=DEFAULT_HEADER_SECONDS, metavar="SECONDS",
                   help="seconds a request's line and headers may take to arrive, else its connection is closed "
                        f"(default {DEFAULT_HEADER_SECONDS:g})")
    p.add_argument("--body-timeout", type=positive(float), default=DEFAULT_BODY_SECONDS, metavar="SECONDS",
                   help="seconds a request's body may take to arrive after its headers "
                        f"(default {DEFAULT_BODY_SECONDS:g})")
    p.add_argument("--allowed-host", action="append", default=[], metavar="NAME[:PORT]",
                   help="another name requests may address this server by (with --host 0.0.0.0: the "
                        "machine's name or address on your network); repeatable")
    return p


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    limit_torch_threads(1)          # agents that run networks: one thread each (a decision at a time)
    try:
        import uvicorn
        from .app import create_app
        from .connections import timed_protocol
    except ImportError as exc:
        print(f"vint-serve: error: {exc}; install the serve extra: pip install \"vint-env[serve]\"", file=sys.stderr)
        return 2
    for option in ("decision_seconds", "header_timeout", "body_timeout"):
        if not getattr(args, option) < float("inf"):
            print(f"vint-serve: error: --{option.replace('_', '-')} must be finite", file=sys.stderr)
            return 2
    try:
        app = create_app(idle_timeout=args.idle_timeout, max_tables=args.max_tables, host=args.host, port=args.port,
                         agents_dirs=args.agents_dir, decision_seconds=args.decision_seconds,
                         allowed_host_names=args.allowed_host)
        protocol = timed_protocol(args.header_timeout, args.body_timeout)
    except ValueError as exc:
        print(f"vint-serve: error: {exc}", file=sys.stderr)
        return 2
    shown = f"[{args.host}]" if ":" in args.host else args.host
    shown = "127.0.0.1" if args.host in ("0.0.0.0", "::") else shown
    print(f"vint-serve: open http://{shown}:{args.port}/ in a browser (Ctrl-C stops the server)")
    # On SIGTERM or Ctrl-C: requests get GRACE seconds, then the tables are stopped (no bot starts another
    # decision) and the process ends at once: a table holds nothing that outlives the process, so a decision
    # still under way (in a daemon thread, .workers) is dropped, not waited for.
    try:
        uvicorn.run(app, host=args.host, port=args.port, log_level="warning", timeout_graceful_shutdown=GRACE,
                    http=protocol)
    except KeyboardInterrupt:
        exit_now(130)
    exit_now(0)
    return 0


def exit_now(code: int) -> None:
    """End the process now, the logs and the output flushed: Python's own exit would first wait for every
    worker thread, and so for any bot's decision still being made."""
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


if __name__ == "__main__":
    sys.exit(main())
