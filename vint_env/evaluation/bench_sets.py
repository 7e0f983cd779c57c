"""The benchmark's frozen board sets: PBN files shipped with the package, checked by SHA-256.

Version ``bench-v1`` holds, for each game, a ``test`` set of 1,000 boards (the one results are
reported on) and a ``dev`` set of 100 (quick checks of a set-up and of a command).  Two-player Vint
plays one set in every way (``--env-option way=N``; the benchmark's way is 4).  Each set is
``generate_boards(n, seed)`` of its own seed, the first four bytes (big-endian) of
``SHA-256("vint-env bench-v1 <game> <split>")``: a rule anyone can re-derive, giving seeds that no
training, tuning or test of the project uses (``tests/evaluation/test_bench_sets.py`` checks that no
file of the repository but this module and the benchmark's page names them).  Training never uses
them: ``vint-train`` refuses a run seed that draws them (the trainer's evaluation boards are
``generate_boards(n, seed=run seed)``).

The SHA-256 of every file is written below, in code: :func:`bench_boards` refuses a file whose bytes
differ, so a result on ``bench-v1`` means the same boards everywhere.  A new set is a new version
(``bench-v2``), never an edit of these.

>>> [b.number for b in bench_boards("whist", "dev")[:3]]
[1, 2, 3]
>>> bench_seed("whist", "test")
1308437435
"""

from __future__ import annotations

import argparse
import hashlib
from pathlib import Path

from .. import games
from ..games import Game
from .deals import Board, boards_to_pbn, generate_boards, parse_boards

VERSION = "bench-v1"
#: boards in each split
SPLITS = {"test": 1000, "dev": 100}
FOLDER = Path(__file__).with_name("deals") / VERSION

#: SHA-256 of each set's file, (game, split) -> hex digest: the sets as frozen.
SHA256 = {
    ("vint", "test"): "30f70f67152591531a5bdc45aa61b66434fbffe7e3682fa5514a23c610dfb237",
    ("vint", "dev"): "043f22d4b64fe6e90dea0480408d6156ed7b16acc81c5799a432149e8e240e74",
    ("whist", "test"): "3751bb7741fb448e32060b44ff4abed8e4bc38d36bc25959e95091097d670503",
    ("whist", "dev"): "535a1ae238a9a60047382aebfabd77518a654fd4e40c11d26a9874cb295649fb",
    ("solo_whist", "test"): "3b2478089606afb8bf8fc1b1f1c7a7cb7e7d863679d9c51e8e5a013e76caa6b9",
    ("solo_whist", "dev"): "112934643b4227573382d5817240011701497cca124c74f21c7fe9b451f2d8bd",
    ("vint2p", "test"): "727947902df489481baaf37e968332c9b00e077c04b1b5501e2400c1413e1218",
    ("vint2p", "dev"): "7744db3d27fed1b9cc9c2170e27922c6bd824bba03a2ef0cb0b6ca099f18a60e",
}


class BenchSetError(ValueError):
    """A frozen board set that is not there, or whose file is not the one frozen."""


def _key(game: Game | str, split: str) -> tuple[str, str]:
    name = games.get(game).name
    if split not in SPLITS:
        raise BenchSetError(f"{VERSION}: split must be one of {', '.join(SPLITS)}, got {split!r}")
    return name, split


def bench_seed(game: Game | str, split: str) -> int:
    """The seed of a set: the first four bytes of SHA-256("vint-env bench-v1 <game> <split>")."""
    name, split = _key(game, split)
    digest = hashlib.sha256(f"vint-env {VERSION} {name} {split}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


def bench_seeds() -> dict[tuple[str, str], int]:
    """Every set's seed, (game, split) -> seed."""
    return {key: bench_seed(*key) for key in SHA256}


def frozen_set_of(seed) -> str | None:
    """The frozen set that ``seed`` draws (``"bench-v1/whist/test"``), or None: what the trainer refuses."""
    for (name, split), s in bench_seeds().items():
        if seed == s:
            return set_name(name, split)
    return None


def bench_path(game: Game | str, split: str) -> Path:
    name, split = _key(game, split)
    return FOLDER / f"{name}_{split}.pbn"


def set_name(game: Game | str, split: str) -> str:
    """The set's name as results cite it: ``bench-v1/whist/test``."""
    name, split = _key(game, split)
    return f"{VERSION}/{name}/{split}"


def set_text(game: Game | str, split: str) -> str:
    """The text of a set's file, made from its seed (what :func:`write_sets` writes)."""
    name, split = _key(game, split)
    seed = bench_seed(name, split)
    head = (f"% vint-env benchmark {VERSION}: {name}, {split} set, {SPLITS[split]} boards\n"
            f"% generate_boards({SPLITS[split]}, seed={seed}); seed = first 4 bytes of "
            f"SHA-256(\"vint-env {VERSION} {name} {split}\")\n"
            "% Never train on these boards (docs/benchmark.md).\n\n")
    return head + boards_to_pbn(generate_boards(SPLITS[split], seed=seed))


def bench_boards(game: Game | str, split: str = "test") -> list[Board]:
    """The boards of a frozen set, after checking the file's SHA-256 against the frozen one."""
    name, split = _key(game, split)
    path = bench_path(name, split)
    if not path.is_file():
        raise BenchSetError(f"{set_name(name, split)}: {path} is missing from the package")
    raw = path.read_bytes()
    got = hashlib.sha256(raw).hexdigest()
    if got != SHA256[name, split]:
        raise BenchSetError(f"{set_name(name, split)}: {path} has SHA-256 {got}, not the frozen "
                            f"{SHA256[name, split]}: the file was changed; reinstall the package")
    return parse_boards(raw.decode("utf-8"), source=str(path))


def write_sets(folder: Path = FOLDER) -> dict[tuple[str, str], str]:
    """Write every set's file into ``folder`` and return their SHA-256 (run once, when a version is made)."""
    folder.mkdir(parents=True, exist_ok=True)
    digests = {}
    for name, split in SHA256:
        text = set_text(name, split)
        (folder / f"{name}_{split}.pbn").write_text(text, encoding="utf-8", newline="\n")
        digests[name, split] = hashlib.sha256(text.encode()).hexdigest()
    return digests


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m vint_env.evaluation.bench_sets",
                                description="Write the frozen board sets' files and print their SHA-256.")
    p.add_argument("--out", type=Path, required=True, help="folder to write the PBN files into")
    args = p.parse_args(argv)
    for (name, split), digest in write_sets(args.out).items():
        print(f'    ("{name}", "{split}"): "{digest}",')
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
