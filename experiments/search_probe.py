"""Card decisions of several agents on the same positions, scored by double-dummy on the real deal.

    python experiments/search_probe.py --game whist --deals 40 --seed 1001 \\
        --probe pimc --probe search --probe search:beliefs=uniform --log results/search/probe_whist.jsonl

A cheap, paired measure for tuning a card player that reads its observations (PIMC, the search
agent): a table of ``--table`` agents (default ``pimc`` in every seat) plays ``--deals`` deals; at
every card decision of seats 0 and 2 each probed agent (its own object per seat, told every turn of
that seat, so that its memory of the deal is what it would be at the table) chooses a card from the
same observation, and the card is scored by what it keeps on the *real* deal if all four then play
double-dummy: the deal's points for the side to move, less the best card's (``loss``, 0 for a
double-dummy-perfect card, in the game's points).  The table plays on with its own agents' cards, so
every probed agent is asked about the same positions.  For a search agent with weighted beliefs it
also logs how much probability its deals put on each hidden card's real place (``placed``, against
the uniform beliefs' ``placed`` on the same position).

A loss measured this way rewards reading the real cards and is blind to what double-dummy cannot see
(concealment, the others' mistakes): a proxy to tune with, confirmed by duplicate matches.
Resumable: one line a deal in ``--log``; ``--summary`` prints the mean loss of each probed agent
with a 95% interval over the deals, and each one's mean difference from the first.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from vint_env import games
from vint_env.agents.registry import load_agent
from vint_env.atomic import atomic_write
from vint_env.envs.playing import Decision, play_episode, start_episode
from vint_env.evaluation.deals import generate_boards
from vint_env.evaluation.tables import make_env, reset_options
from vint_env.evaluation.match import derive_seed


def true_hands(raw, seat: int) -> list[int]:
    """The hands held now at the table, relative to ``seat``."""
    hands = raw.deal.play.hands
    return [int(hands[(seat + r) % 4]) for r in range(4)]


def probe_deal(record, table_specs, probe_specs, board, seed: int, probes=None) -> dict:
    """One deal: the table plays, every probed agent chooses at each decision of seats 0 and 2."""
    from vint_env.agents.search.pimc import solve_deals
    env = make_env(record, "deal")
    table = [load_agent(s, game=record) for s in table_specs]
    if probes is None:
        probes = [[load_agent(s, game=record) for _ in range(4)] for s in probe_specs]
    for i, row in enumerate(probes):
        for seat, a in enumerate(row):
            a.reset(derive_seed(seed, board.number, 2 + i, seat))
    start_episode(env, table, derive_seed(seed, board.number, 0),
                  [derive_seed(seed, board.number, 1, seat) for seat in range(len(table))],
                  reset_options(record, board))
    plan = record.pimc_plan()
    losses = [[] for _ in probe_specs]
    placed: list[list[float]] = [[] for _ in probe_specs]
    seconds = [0.0 for _ in probe_specs]
    decisions = 0

    def probe(d: Decision) -> None:
        """Before the table's agent acts: the probed agents' cards, scored double-dummy on the real deal."""
        nonlocal decisions
        seat, obs = d.seat, d.observation
        k = record.decode(obs["observation"])
        legal = np.flatnonzero(obs["action_mask"])
        if seat % 2 or not plan.in_play(k):
            return
        cards = []
        for i, row in enumerate(probes):
            t = time.process_time()
            cards.append(int(row[seat].act(obs, agent=d.agent)))
            seconds[i] += time.process_time() - t
        if len(legal) > 1:
            pos = plan.position(k)
            hands = true_hands(env.unwrapped, seat)
            res = solve_deals(pos, [tuple(hands)])[0]
            won = pos.side_tricks[0]
            value = {int(c): pos.points(won + res[int(c)]) for c in legal}
            best = max(value.values())
            decisions += 1
            for i, c in enumerate(cards):
                losses[i].append(best - value[c])
                last = getattr(probes[i][seat], "last", None)
                if isinstance(last, dict) and last.get("belief") is not None:
                    placed[i].append(_placed(last["belief"], hands))
                    last["belief"] = None

    play_episode(env, table, before=probe)
    return {"board": board.number, "decisions": decisions, "loss": [float(sum(x)) for x in losses],
            "placed": [float(np.mean(p)) if p else None for p in placed], "cpu_seconds": seconds}


def _placed(belief, hands) -> float:
    """The mean probability the belief gives each hidden card's real holder (seats 1..3)."""
    hidden = [(s, c) for s in (1, 2, 3) for c in range(52) if hands[s] >> c & 1]
    if not hidden:
        return 1.0
    total = 0.0
    for deal, w in zip(belief.deals, belief.weights):
        total += w * sum(deal[s] >> c & 1 for s, c in hidden)
    return total / len(hidden)


def summary(log: Path) -> str:
    rows = [json.loads(line) for line in log.read_text().splitlines() if line.startswith('{"board"')]
    head = json.loads(log.read_text().splitlines()[0])
    specs = head["probe"]
    losses = np.array([r["loss"] for r in rows])            # [deals, agents], summed over a deal's decisions
    cpu = np.array([r["cpu_seconds"] for r in rows]).sum(axis=0)
    n = np.array([r["decisions"] for r in rows]).sum()
    out = [f"{len(rows)} deals, {n} decisions with a choice (seats 0 and 2); loss: points a deal given up "
           f"against double-dummy on the real deal, both seats summed", "",
           "| agent | loss a deal (95% CI) | minus the first (95% CI) | placed | CPU s a decision |",
           "|---|---|---|---|---|"]
    for i, s in enumerate(specs):
        m, h = _ci(losses[:, i])
        d, dh = _ci(losses[:, i] - losses[:, 0])
        placed = [r["placed"][i] for r in rows if r["placed"][i] is not None]
        pl = f"{np.mean(placed):.3f}" if placed else ""
        out.append(f"| `{s}` | {m:.3f} [{m - h:.3f}, {m + h:.3f}] | {d:+.3f} [{d - dh:+.3f}, {d + dh:+.3f}] "
                   f"| {pl} | {cpu[i] / max(1, n):.3f} |")
    return "\n".join(out)


def _ci(x) -> tuple[float, float]:
    x = np.asarray(x, dtype=float)
    if len(x) < 2:
        return float(x.mean()) if len(x) else 0.0, float("nan")
    return float(x.mean()), float(1.96 * x.std(ddof=1) / np.sqrt(len(x)))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    games.add_game_option(p, default="whist")
    p.add_argument("--deals", type=int, default=40)
    p.add_argument("--seed", type=int, default=1001)
    p.add_argument("--table", default="pimc", help="the agent of every seat at the table")
    p.add_argument("--probe", action="append", default=[], help="an agent spec to probe (repeatable)")
    p.add_argument("--log", type=Path, required=True)
    p.add_argument("--summary", action="store_true")
    args = p.parse_args(argv)
    if args.summary:
        print(summary(args.log))
        return 0
    record = games.get(args.game)
    specs = args.probe or ["pimc", "search"]
    head = {"game": record.name, "seed": args.seed, "table": args.table, "probe": specs}
    done = set()
    if args.log.exists():
        lines = args.log.read_text().splitlines()
        if json.loads(lines[0]) != head:
            raise SystemExit(f"{args.log} was written for {lines[0]}, not {head}")
        done = {json.loads(line)["board"] for line in lines[1:]}
    else:
        args.log.parent.mkdir(parents=True, exist_ok=True)
        with atomic_write(args.log, "w") as f:
            f.write(json.dumps(head) + "\n")
    probes = [[load_agent(s, game=record) for _ in range(4)] for s in specs]
    start = time.perf_counter()
    todo = [b for b in generate_boards(args.deals, seed=args.seed) if b.number not in done]
    for i, board in enumerate(todo):
        row = probe_deal(record, [args.table] * 4, specs, board, args.seed, probes)
        with args.log.open("a") as f:
            f.write(json.dumps(row) + "\n")
        left = (time.perf_counter() - start) / (i + 1) * (len(todo) - i - 1)
        print(f"board {board.number}: {row['loss']} ({i + 1}/{len(todo)}, about {left / 60:.0f} min left)",
              flush=True)
    print(summary(args.log))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
