"""The batched engine of the working tree against the same engine at a pinned commit, side by side, by ratio.

``python -m benchmarks.engine_throughput --against`` (or ``--against REF``) runs from a git clone of the project:

- each reference commit's ``vint_env`` is exported (``git archive``) once into a cache folder
  (``--ref-dir``, default ``~/.cache/vint_env/bench-refs/<commit>``; numba's compiled kernels are cached
  beside its sources, so only the first run compiles them);
- one worker process imports the working tree's engine, another the reference's (two versions of one
  package cannot share a process); the workers stay up, and only one of them runs at a time;
- for each engine and thread count, ``--rounds`` rounds of about ``--seconds`` each play random legal moves
  (``random_actions`` then ``step``, observation and mask every step, as ``benchmarks.engine_throughput``), the
  working tree and the reference alternating (A B, then B A, ...), so both see the same machine;
- it prints each side's median steps per second and the median of the per-round ratios (working tree /
  reference), and exits with status 1 when a median ratio is below ``--min-ratio`` (default 0.95).

The default references (``REFERENCES``) are the last commits before the engine's state checks: 691ada8
for ``VintEngine`` and ``WhistEngine``, 764f35d (Solo Whist's first kernel) for ``SoloWhistEngine``, a23da71
(two-player Vint's first kernel) for ``Vint2pEngine``.
``--against REF`` compares every engine with one commit instead; ``--reference-tree DIR`` with a folder
that holds a ``vint_env`` package (no git needed).  Threads: ``1`` runs the engine with
``parallel=False``, ``2`` with ``parallel=True`` on two numba threads.  On a machine shared with other
work the absolute figures move with the load; the ratios, measured seconds apart, hold better: quote
them with the load average the run prints.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import subprocess
import sys
import tarfile
from pathlib import Path

#: The pinned reference of each engine class: its last commit before the state checks (issue 36).  An engine
#: without one (a kernel added later) is compared only with ``--against REF``.
REFERENCES = {
    "VintEngine": "691ada8e315c5eedf50e7ecd5a11fb2427064ef7",
    "WhistEngine": "691ada8e315c5eedf50e7ecd5a11fb2427064ef7",
    "SoloWhistEngine": "764f35dd81da836f0558285c73144c2fa2ea78ca",
    "Vint2pEngine": "a23da719beed9bb3caa9a828d472359d4897ace1",   # two-player Vint's first kernel
}


def engine_classes() -> dict[str, str]:
    """Each game with a batched engine, by name, and its engine's class name (from the game records)."""
    from vint_env import games
    return {name: games.get(name).engine.rsplit(":", 1)[1] for name in games.engine_games()}


# The worker: imports the engine of the tree given as its argument, then answers one JSON line per request.
_WORKER = r'''
import json, os, sys, time
root = sys.argv[1]
sys.path.insert(0, root)
import numpy as np, numba
import vint_env
if not os.path.realpath(vint_env.__file__).startswith(os.path.realpath(root) + os.sep):
    raise SystemExit(f"imported vint_env from {vint_env.__file__}, not from {root}")
from vint_env.vector import engine as engines
runs = {}
def setup(name, cls, batch, threads):
    t0 = time.perf_counter()
    e = getattr(engines, cls)(parallel=threads > 1)
    numba.set_num_threads(threads)
    state = e.init(seed=0, batch_size=batch)
    rng = np.random.default_rng(0)
    for _ in range(3):
        e.step(state, e.random_actions(state, rng))
    runs[name] = (e, state, rng, batch, threads)
    return {"compile_s": time.perf_counter() - t0}
def run(name, seconds):
    e, state, rng, batch, threads = runs[name]
    numba.set_num_threads(threads)
    n = 0
    c0 = time.process_time()
    t0 = time.perf_counter()
    deadline = t0 + seconds
    while True:
        for _ in range(10):
            e.step(state, e.random_actions(state, rng))
        n += 10
        now = time.perf_counter()
        if now >= deadline:
            return {"steps": n * batch, "wall": now - t0, "cpu": time.process_time() - c0}
print(json.dumps({"ready": vint_env.__file__}), flush=True)
for line in sys.stdin:
    req = json.loads(line)
    try:
        out = setup(**req["setup"]) if "setup" in req else run(**req["run"])
    except Exception as exc:
        out = {"error": f"{type(exc).__name__}: {exc}"}
    print(json.dumps(out), flush=True)
'''


class Worker:
    """A process that holds one tree's engines and runs them on request."""

    def __init__(self, label: str, root: Path):
        self.label = label
        env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH="")
        self.proc = subprocess.Popen([sys.executable, "-c", _WORKER, str(root)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, env=env)
        self.file = self._reply()["ready"]

    def _reply(self) -> dict:
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the {self.label} worker stopped (exit status {self.proc.wait()})")
        out = json.loads(line)
        if "error" in out:
            raise RuntimeError(f"the {self.label} worker failed: {out['error']}")
        return out

    def ask(self, **request) -> dict:
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        return self._reply()

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"git {' '.join(args)} failed in {repo}: {done.stderr.strip()}")
    return done.stdout.strip()


def working_tree() -> Path:
    """The folder that holds the ``vint_env`` package this process imports (the clone's)."""
    import vint_env
    return Path(vint_env.__file__).resolve().parents[1]


def reference_tree(repo: Path, ref: str, cache: Path) -> Path:
    """A folder holding ``vint_env`` as of commit ``ref`` (exported once, then reused)."""
    sha = _git(repo, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    root = cache / sha
    if (root / ".complete").exists():
        return root
    root.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "-C", str(repo), "archive", "--format=tar", sha, "vint_env"],
                             capture_output=True)
    if archive.returncode:
        raise SystemExit(f"git archive {sha} failed: {archive.stderr.decode(errors='replace').strip()}")
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(root, filter="data")
    (root / ".complete").write_text(sha + "\n")
    return root


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks.engine_throughput --against",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--against", nargs="?", const="", default="", metavar="REF",
                   help="one commit for every engine (default: each engine's pinned reference, REFERENCES)")
    p.add_argument("--reference-tree", type=Path, help="a folder holding the reference's vint_env (instead of git)")
    p.add_argument("--engines", default=",".join(engine_classes()),
                   help=f"comma-separated games: {', '.join(engine_classes())} (default: all)")
    p.add_argument("--threads", default="1,2", help="comma-separated thread counts: 1 and/or 2")
    p.add_argument("--batch-size", type=int, default=1024)
    p.add_argument("--rounds", type=int, default=7, help="alternating rounds per engine and thread count")
    p.add_argument("--seconds", type=float, default=1.0, help="length of one side's run in a round")
    p.add_argument("--min-ratio", type=float, default=0.95, help="exit 1 below this median ratio")
    p.add_argument("--ref-dir", type=Path, help="where reference commits are exported (default ~/.cache/...)")
    args = p.parse_args(argv)
    engines = [e for e in args.engines.split(",") if e]
    classes = engine_classes()
    unknown = [e for e in engines if e not in classes]
    if unknown or not engines:
        p.error(f"--engines takes {', '.join(classes)}, got {args.engines!r}")
    engines = [classes[e] for e in engines]          # from here on, each engine by its class name
    unpinned = [e for e in engines if e not in REFERENCES]
    if unpinned and not args.against and args.reference_tree is None:
        p.error(f"no pinned reference for {', '.join(unpinned)}: name one with --against REF")
    try:
        threads = [int(t) for t in args.threads.split(",") if t]
    except ValueError:
        threads = []
    if not threads or any(t not in (1, 2) for t in threads):
        p.error(f"--threads takes 1 and/or 2, got {args.threads!r}")
    if args.batch_size < 1 or args.rounds < 1 or not args.seconds > 0 or not 0 < args.min_ratio < 10:
        p.error("--batch-size and --rounds must be >= 1, --seconds > 0, --min-ratio in (0, 10)")
    if args.reference_tree is not None and not (args.reference_tree / "vint_env" / "__init__.py").is_file():
        p.error(f"--reference-tree {args.reference_tree} holds no vint_env package")
    args.engines, args.threads = engines, threads
    return args


def _load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def main(argv=None) -> int:
    args = parse_args(argv)
    here = working_tree()
    if args.reference_tree is not None:
        refs = {e: (str(args.reference_tree), args.reference_tree.resolve()) for e in args.engines}
    else:
        cache = args.ref_dir or Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "vint_env" / "bench-refs"
        refs = {}
        for e in args.engines:
            ref = args.against or REFERENCES[e]
            refs[e] = (ref[:12], reference_tree(here, ref, cache))
    threads = [t for t in args.threads if t <= (os.cpu_count() or 1)]
    print(f"# the batched engine of the working tree ({here}) against "
          + ", ".join(f"{e}: {name}" for e, (name, _) in refs.items()))
    print(f"# {os.cpu_count()} CPUs, load average {_load()}; B={args.batch_size}, {args.rounds} rounds "
          f"of {args.seconds:g} s a side, alternating; ratio = working tree / reference (median of rounds)")
    workers: dict[Path, Worker] = {}
    try:
        failed = _compare(args, here, refs, threads, workers)
    except RuntimeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    finally:
        for w in workers.values():
            w.close()
    print(f"# load average now {_load()}")
    if failed:
        print(f"# below {args.min_ratio}x: " + "; ".join(failed))
        return 1
    print(f"# every median ratio >= {args.min_ratio}x")
    return 0


def _compare(args, here: Path, refs: dict, threads: list[int], workers: dict) -> list[str]:
    """Every engine and thread count, rounds alternating; prints a row each, returns the ones below the ratio."""
    failed = []
    mine = workers.setdefault(here, Worker("working-tree", here))
    print(f"{'engine':<18} {'threads':>7} {'working tree':>14} {'reference':>14} {'ratio':>7} "
          f"{'per CPU-s':>9}  rounds (ratio)", flush=True)
    for e in args.engines:
        root = refs[e][1]
        theirs = workers.get(root) or workers.setdefault(root, Worker(f"reference {refs[e][0]}", root))
        for t in threads:
            key = f"{e}/{t}"
            for w in (mine, theirs):
                w.ask(setup={"name": key, "cls": e, "batch": args.batch_size, "threads": t})
            rates = {"mine": [], "theirs": [], "ratio": [], "cpu_ratio": []}
            for r in range(args.rounds):
                order = ((mine, "mine"), (theirs, "theirs"))
                got = {}
                for w, side in (order if r % 2 == 0 else order[::-1]):
                    got[side] = w.ask(run={"name": key, "seconds": args.seconds})
                wall = {s: g["steps"] / g["wall"] for s, g in got.items()}
                cpu = {s: g["steps"] / max(g["cpu"], 1e-9) for s, g in got.items()}
                rates["mine"].append(wall["mine"])
                rates["theirs"].append(wall["theirs"])
                rates["ratio"].append(wall["mine"] / wall["theirs"])
                rates["cpu_ratio"].append(cpu["mine"] / cpu["theirs"])
            ratio = statistics.median(rates["ratio"])
            if ratio < args.min_ratio:
                failed.append(f"{e}, {t} thread(s): {ratio:.3f}x")
            print(f"{e:<18} {t:>7} {statistics.median(rates['mine']):>14,.0f} "
                  f"{statistics.median(rates['theirs']):>14,.0f} {ratio:>6.3f}x "
                  f"{statistics.median(rates['cpu_ratio']):>8.3f}x  "
                  + " ".join(f"{x:.2f}" for x in rates["ratio"]), flush=True)
    return failed


if __name__ == "__main__":
    sys.exit(main())
