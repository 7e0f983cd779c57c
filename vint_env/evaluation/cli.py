"""`vint-eval`: duplicate matches and leagues between agents from the command line.

Examples::

    vint-eval match --game vint --a rule --b random --boards 1000 --workers 2 --out results/rule_vs_random.json
    vint-eval --game whist --a network:runs/whist/checkpoints/latest.pt --b rule --boards 1000   # `match` is the default
    vint-eval match --game vint --a dd --b rule --boards 200
    vint-eval match --game vint --a rule --b random --episode rubber --boards 100
    vint-eval league --game vint --agents random rule dd --boards 200 --out-dir results/league_vint
    vint-eval deals --boards 1000 --seed 0 --out my_deals.pbn
    vint-eval ladder --game whist --agent network:runs/whist/checkpoints/latest.pt --set test   # the benchmark
    vint-eval match --game vint2p --env-option way=1 --a rule --b random --boards 1000
    vint-eval match --game vint --a rule --b random --boards 100 --out results/m.json --html results/m.html
    vint-eval view results/m.json              # the HTML viewer (results/m.html) from saved results
    vint-eval video --game vint --a rule --b random --board 1 --viewer S --out deal.gif   # a board as a GIF

Agents are spec strings: random, rule, dd, pimc[:OPTION,...], network:PATH, baseline (the trained agent
shipped for the game), human, py:MODULE:NAME ...; `vint-eval agents` lists every kind with its options.
Boards come from ``--deals FILE.pbn`` or are generated from ``--seed``
(board i depends only on the seed and i).
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from .. import games
from ..games import Game
from ..agents.learned.threads import limit_torch_threads
from ..agents.spec import kinds_listing, parse_spec
from ..file_roles import check_file_roles, spec_inputs
from ..seeds import check_seed
from .deals import generate_board, generate_boards, load_boards, save_boards
from ..agents.program import BotError
from .match import WorkerError, default_workers, run_match
from .report import match_json, summarize, summary_markdown, write_json, write_text
from .viewer import load_results, render_results, write_html
from ..cli_args import add_version, positive, positive_int, within


#: The most boards a command plays or writes; the largest board number `video` deals; its frames a second.
MAX_BOARDS = 1_000_000
MAX_BOARD_NUMBER = 10**9
FPS = (0.1, 50.0)


def _boards(args):
    if args.deals:
        boards = load_boards(args.deals)
        return boards[:args.boards] if args.boards is not None else boards
    return generate_boards(args.boards or 1000, seed=args.deal_seed if args.deal_seed is not None else args.seed)


def output_paths(out: Path) -> tuple[Path, Path]:
    """The JSON and Markdown files of ``--out``: ``r.json`` -> (r.json, r.md), ``r.md`` -> (r.json, r.md),
    ``r`` -> (r.json, r.md); any other suffix is kept for the JSON."""
    out = Path(out)
    if out.suffix in ("", ".md", ".json"):
        return out.with_suffix(".json"), out.with_suffix(".md")
    return out, out.with_suffix(".md")


def _common(p: argparse.ArgumentParser) -> None:
    games.add_game_option(p, default="vint")
    p.add_argument("--boards", type=positive(int, MAX_BOARDS), default=None,
                   help=f"number of boards (default 1000, or all in --deals; at most {MAX_BOARDS:,})")
    p.add_argument("--deals", type=Path, default=None, help="PBN file of boards (see `vint-eval deals`)")
    p.add_argument("--seed", type=int, default=0, help="match seed (agents' randomness, generated boards)")
    p.add_argument("--deal-seed", type=int, default=None, help="seed of generated boards (default --seed)")
    p.add_argument("--workers", type=positive_int, default=default_workers(), help="processes (default: CPU count)")
    p.add_argument("--threads", type=positive_int, default=1,
                   help="torch threads of each process that plays (default 1: a network per decision is small, "
                        "and more threads per worker only fight over the cores)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    _env_option_argument(p)


def _env_option_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("--env-option", action="append", default=[], metavar="KEY=VALUE",
                   help="an option of the game's env, repeatable (two-player Vint: way=1 ... way=5)")


def _env_options(args) -> dict:
    return env_options(args.env_option, args.record)


def env_options(items, game: Game | str = "vint") -> dict:
    """``--env-option KEY=VALUE`` pairs (of `vint-eval` and `vint-play`), parsed and checked by the game's
    declared parameters (a bad value or an unknown option is an error naming it); ``game``: its record
    or its name."""
    try:
        return games.get(game).parse_options(items)
    except ValueError as e:
        raise ValueError(f"--env-option: {e}") from None


def _check_outputs(args, specs, outputs: dict, folders: dict | None = None) -> None:
    """No output over an input: ``--deals``, and every file or folder the agents' parsed specs name
    (``network:PATH``, ``bidder:PATH``, ``baseline[:DIR]`` ..., from their declarations)."""
    files, read_folders = spec_inputs(specs)
    check_file_roles({"--deals": args.deals, **files}, outputs, folders, read_folders)


def cmd_match(args) -> int:
    json_path, md_path = output_paths(args.out) if args.out else (None, None)
    a, b = parse_spec(args.a), parse_spec(args.b)
    _check_outputs(args, [a, b], {"--out (JSON)": json_path, "--out (Markdown)": md_path, "--html": args.html})
    boards = _boards(args)
    limit_torch_threads(args.threads)           # this process plays too (--workers 1) and loads the agents
    result = run_match(args.record, a, b, boards, seed=args.seed, workers=args.workers,
                       episode=args.episode, progress=not args.no_progress, analysis=not args.no_dd,
                       env_options=_env_options(args), threads=args.threads)
    summary = summarize(result)
    command = args.command_line
    text = summary_markdown(summary, command)
    summary["command"] = command
    written = []
    if args.out:
        written += [write_json(json_path, match_json(result, summary)), write_text(md_path, text)]
    if args.html:
        record = match_json(result, summary)
        record["markdown"] = text
        written.append(write_html(args.html, [record]))
    if written:
        text += "\nwrote " + " and ".join(str(p) for p in written) + "\n"
    print(text)
    return 0


def cmd_view(args) -> int:
    out = args.html or Path(args.results).with_suffix(".html")
    check_file_roles({"results": args.results}, {"--html": out})
    matches = load_results(args.results)
    page = render_results(args.results, matches, summary_markdown)
    print(f"wrote {write_text(out, page)}")
    return 0


def cmd_league(args) -> int:
    from .league import LEAGUE_FILES, run_league, write_league
    agents = [parse_spec(a) for a in args.agents]
    _check_outputs(args, agents, {f"--out-dir ({name})": Path(args.out_dir) / name for name in LEAGUE_FILES})
    boards = _boards(args)
    limit_torch_threads(args.threads)
    league = run_league(args.record, agents, boards, seed=args.seed, workers=args.workers,
                        progress=not args.no_progress, env_options=_env_options(args), threads=args.threads)
    command = args.command_line
    paths = write_league(league, args.out_dir, command)
    print(paths["markdown"].read_text())
    print("wrote " + ", ".join(str(p) for p in paths.values()))
    return 0


def cmd_ladder(args) -> int:
    from .ladder import ladder_files, ladder_key, ladder_markdown, run_ladder, write_ladder
    options = _env_options(args)
    out_dir = args.out_dir or Path("results") / "ladder" / ladder_key(args.record, options) / args.set
    files, read_folders = spec_inputs([parse_spec(args.agent)])
    check_file_roles({**files, "--rungs-from": args.rungs_from},
                     {f"--out-dir ({p.name})": p for p in ladder_files(args.agent, out_dir).values()},
                     None, read_folders)
    limit_torch_threads(args.threads)
    command = args.command_line
    ladder = run_ladder(args.record, args.agent, split=args.set, boards=args.boards, env_options=options,
                        workers=args.workers, threads=args.threads, progress=not args.no_progress,
                        out_dir=out_dir, command=command, rungs_from=args.rungs_from, bootstrap=args.bootstrap,
                        only_rungs=args.rungs,
                        say=lambda text: print(text, flush=True))
    paths = write_ladder(ladder, out_dir)
    print("\n" + ladder_markdown(ladder))
    print("wrote " + ", ".join(str(p) for p in paths.values()))
    return 0


def cmd_video(args) -> int:
    from ..cards import SEAT_LETTERS
    from .video import check_output, record_board, write_video
    from .match import seat_plans
    check_output(args.out)
    tables = len(seat_plans(args.record.format))
    if args.table > tables:         # --table counts from 1, as the match's board log does
        raise ValueError(f"--table {args.table}: a board of {args.record.name} is played at tables 1 to {tables}")
    limit_torch_threads(1)          # the board is played in this process
    a, b = parse_spec(args.a), parse_spec(args.b)
    _check_outputs(args, [a, b], {"--out": args.out})
    if args.deals:
        boards = load_boards(args.deals)
        if args.board > len(boards):
            raise ValueError(f"--board {args.board}: {args.deals} holds {len(boards)} boards")
        board = boards[args.board - 1]
    else:                           # only the board played is dealt
        seed = args.deal_seed if args.deal_seed is not None else args.seed
        check_seed(seed, allow_none=False)
        board = generate_board(seed, args.board)
    viewer = None
    if args.viewer is not None:
        text = args.viewer.strip().upper()
        if len(text) == 1 and text in SEAT_LETTERS:
            viewer = SEAT_LETTERS.index(text)
        elif text in ("0", "1", "2", "3"):
            viewer = int(text)
        else:
            raise ValueError(f"--viewer must be a seat N, E, S, W or 0-3, got {args.viewer!r}")
    frames = record_board(args.record, a, b, board, seed=args.seed, table=args.table - 1,
                          viewer=viewer, episode=args.episode, env_options=_env_options(args))
    write_video(args.out, frames, args.fps, frame=args.frame)
    what = f"frame {args.frame or len(frames)} of {len(frames)}" if args.out.suffix.lower() == ".png" else \
        f"{len(frames)} frames at {args.fps:g} a second"
    print(f"wrote {args.out}: {what} "
          f"(board {args.board}, table {args.table}, {'all hands' if viewer is None else 'seen by ' + args.viewer})")
    return 0


def cmd_agents(args) -> int:
    print(kinds_listing())
    return 0


def cmd_deals(args) -> int:
    boards = generate_boards(args.boards, seed=args.seed)
    save_boards(boards, args.out)
    print(f"wrote {len(boards)} boards (seed {args.seed}) to {args.out}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="vint-eval", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    add_version(parser)
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser("match", help="duplicate match between two agents")
    m.add_argument("--a", required=True, help="agent spec of team A")
    m.add_argument("--b", required=True, help="agent spec of team B")
    m.add_argument("--episode", choices=("deal", "rubber"), default="deal")
    m.add_argument("--no-dd", action="store_true",
                   help="skip the double-dummy analysis of Vint tables (par, declarer play): faster")
    m.add_argument("--out", type=Path, default=None,
                   help="results file: FILE.json (per-board results, replays and summary) and FILE.md (report)")
    m.add_argument("--html", type=Path, default=None,
                   help="HTML match viewer: summary, margin chart, sortable boards, replay of every table")
    _common(m)
    m.set_defaults(func=cmd_match)
    lg = sub.add_parser("league", help="round robin of several agents with ratings")
    lg.add_argument("--agents", nargs="+", required=True, help="agent specs")
    lg.add_argument("--out-dir", type=Path, default=Path("results/league"))
    _common(lg)
    lg.set_defaults(func=cmd_league)
    v = sub.add_parser("view", help="build the HTML match viewer from a results file of `match --out`")
    v.add_argument("results", type=Path, help="results JSON written by `vint-eval match --out`")
    v.add_argument("--html", type=Path, default=None, help="the page to write (default: RESULTS with .html)")
    v.set_defaults(func=cmd_view)
    vd = sub.add_parser("video", help="record one board of a match to an animated GIF (or a frame to a PNG)")
    games.add_game_option(vd, default="vint")
    vd.add_argument("--a", default="rule", help="agent spec of team A (default rule)")
    vd.add_argument("--b", default="rule", help="agent spec of team B (default rule)")
    vd.add_argument("--board", type=positive(int, MAX_BOARD_NUMBER), default=1, help="board number (default 1)")
    vd.add_argument("--episode", choices=("deal", "rubber"), default="deal",
                    help="the board's deal, or a whole rubber from it, as `match --episode` plays it")
    vd.add_argument("--table", type=positive_int, default=1,
                    help="table of the board: 1 has team A in the first seats (N/S, player_0)")
    vd.add_argument("--deals", type=Path, default=None, help="PBN file of boards (default: generated from --seed)")
    vd.add_argument("--seed", type=int, default=0, help="match seed, as in `vint-eval match`")
    vd.add_argument("--deal-seed", type=int, default=None, help="seed of generated boards (default --seed)")
    vd.add_argument("--viewer", default=None,
                    help="show only what this seat sees (N E S W or 0-3; two-player Vint: player 0 or 1)")
    vd.add_argument("--fps", type=within(float, *FPS), default=2.0,
                    help=f"frames a second, {FPS[0]:g} to {FPS[1]:g} (default 2)")
    vd.add_argument("--frame", type=positive_int, default=None,
                    help="with --out FILE.png: the frame to write (1 = before the first call; default the last)")
    _env_option_argument(vd)
    vd.add_argument("--out", type=Path, required=True, help="the GIF (the whole board) or PNG (one frame) to write")
    vd.set_defaults(func=cmd_video)

    ag = sub.add_parser("agents", help="list every kind of agent spec with its options")
    ag.set_defaults(func=cmd_agents)

    ld = sub.add_parser("ladder", help="the benchmark: an agent against every rung on a frozen board set, "
                                       "with one rating (resumes where it stopped)")
    games.add_game_option(ld, default="vint")
    ld.add_argument("--agent", required=True, help="agent spec of the player to rate")
    ld.add_argument("--set", choices=("test", "dev"), default="test",
                    help="the frozen board set (bench-v1): test, 1,000 boards (the benchmark), or dev, 100")
    ld.add_argument("--boards", type=positive_int, default=None,
                    help="play only the set's first N boards (a quick check, not a benchmark result)")
    ld.add_argument("--out-dir", type=Path, default=None,
                    help="the ladder's folder: match logs (kept: later ladders reuse the rungs' matches) and "
                         "results (default results/ladder/GAME/SET)")
    ld.add_argument("--rungs-from", type=Path, default=None,
                    help="a ladder results file (ladder_*.json) whose rung-against-rung matches on the same "
                         "boards are taken instead of played")
    ld.add_argument("--rungs", nargs="+", default=None, metavar="RUNG",
                    help="only these of the game's rungs (random always among them): a quick check, or a ladder "
                         "whose costly rungs are left for later; a benchmark result has them all")
    ld.add_argument("--bootstrap", type=positive_int, default=1000, help="bootstrap draws of the rating intervals")
    ld.add_argument("--workers", type=positive_int, default=default_workers(), help="processes (default: CPU count)")
    ld.add_argument("--threads", type=positive_int, default=1, help="torch threads of each process that plays")
    ld.add_argument("--no-progress", action="store_true", help="no progress bar")
    _env_option_argument(ld)
    ld.set_defaults(func=cmd_ladder)

    d = sub.add_parser("deals", help="write a seeded set of boards to a PBN file")
    d.add_argument("--boards", type=positive(int, MAX_BOARDS), default=1000, help=f"at most {MAX_BOARDS:,}")
    d.add_argument("--seed", type=int, default=0)
    d.add_argument("--out", type=Path, required=True)
    d.set_defaults(func=cmd_deals)
    return parser


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0].startswith("--") and argv[0] not in ("-h", "--help", "--version"):
        argv.insert(0, "match")          # `vint-eval --a X --b Y` means a match
    args = build_parser().parse_args(argv)
    args.command_line = "vint-eval " + " ".join(shlex.quote(a) for a in argv)    # what the results record
    if hasattr(args, "game"):
        args.record = games.get(args.game)      # the game, resolved once: the commands pass the record on
    try:
        return args.func(args)
    except KeyboardInterrupt:
        print("\nvint-eval: interrupted; " + ("the boards played are logged: the same command resumes the ladder"
                                              if args.command == "ladder" else "nothing was written"), file=sys.stderr)
        return 130
    except (ValueError, ImportError) as exc:
        print(f"vint-eval: error: {exc}", file=sys.stderr)
        return 2
    except BotError as exc:         # an outside program that broke the protocol: killed, the match stopped
        print(f"vint-eval: error: {type(exc).__name__}: {exc}"
              + ("; the boards played are logged: the same command resumes the ladder" if args.command == "ladder"
                 else "; nothing was written"), file=sys.stderr)
        return 1
    except WorkerError as exc:      # a worker process killed (out of memory, by hand) mid-match
        print(f"vint-eval: error: {exc}; nothing was written", file=sys.stderr)
        return 1
    except OSError as exc:      # a missing or unreadable file, a folder that cannot be created
        print(f"vint-eval: error: {exc.strerror or exc}"
              + (f": {exc.filename}" if exc.filename else ""), file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
