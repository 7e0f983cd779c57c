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

#: The sets' SHA-256, one line a file in ``sha256sum``'s format (``sha256sum -c SHA256SUMS`` checks them)
SUMS = "SHA256SUMS"
#: The SHA-256 of that file: it pins every set of the version in code.
SUMS_SHA256 = "5c122a0144a3139639df8e8a2c7e863c37a4043c408085ac9fc240b69b860716"


class BenchSetError(ValueError):
    """A frozen board set that is not there, or whose file is not the one frozen."""


def _key(game: Game | str, split: str) -> tuple[str, str]:
    name = games.get(game).name
    if split not in SPLITS:
        raise BenchSetError(f"{VERSION}: split must be one of {', '.join(SPLITS)}, got {split!r}")
    return name, split


def frozen_sums(folder: Path | None = None) -> dict[tuple[str, str], str]:
    """(game, split) -> SHA-256 of its file, from the version's SHA256SUMS (itself checked against
    :data:`SUMS_SHA256`)."""
    path = (folder or FOLDER) / SUMS
    if not path.is_file():
        raise BenchSetError(f"{VERSION}: {path} is missing from the package")
    raw = path.read_bytes()
    got = hashlib.sha256(raw).hexdigest()
    if got != SUMS_SHA256:
        raise BenchSetError(f"{VERSION}: {path} has SHA-256 {got}, not the frozen {SUMS_SHA256}: the file was "
                            f"changed; reinstall the package")
    sums = {}
    for line in raw.decode().splitlines():
        digest, _, file = line.strip().partition("  ")
        name, _, split = file.removesuffix(".pbn").rpartition("_")
        sums[name, split] = digest
    return sums


def sha256_of(game: Game | str, split: str) -> str:
    """The frozen SHA-256 of a set's file."""
    key = _key(game, split)
    sums = frozen_sums()
    if key not in sums:
        raise BenchSetError(f"{VERSION} has no {key[1]} set of {key[0]} (it has {', '.join(sorted({g for g, _ in sums}))})")
    return sums[key]


def bench_seed(game: Game | str, split: str) -> int:
    """The seed of a set: the first four bytes of SHA-256("vint-env bench-v1 <game> <split>")."""
    name, split = _key(game, split)
    digest = hashlib.sha256(f"vint-env {VERSION} {name} {split}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


def bench_seeds() -> dict[tuple[str, str], int]:
    """Every set's seed, (game, split) -> seed."""
    return {key: bench_seed(*key) for key in frozen_sums()}


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
    got, frozen = hashlib.sha256(raw).hexdigest(), sha256_of(name, split)
    if got != frozen:
        raise BenchSetError(f"{set_name(name, split)}: {path} has SHA-256 {got}, not the frozen "
                            f"{frozen}: the file was changed; reinstall the package")
    return parse_boards(raw.decode("utf-8"), source=str(path))


def sets_table() -> str:
    """The version's sets as a Markdown table: game, split, boards, seed, SHA-256 (the benchmark's page)."""
    rows = [f"| game | set | boards | seed | SHA-256 of `deals/{VERSION}/GAME_SET.pbn` |", "|---|---|---|---|---|"]
    for (name, split), digest in frozen_sums().items():
        rows.append(f"| {games.get(name).title} | {split} | {SPLITS[split]:,} | {bench_seed(name, split)} | "
                    f"`{digest}` |")
    rows.append(f"| | | | | `{SUMS_SHA256}`: SHA-256 of `{SUMS}`, pinned in the code |")
    return "\n".join(rows)


def write_sets(folder: Path = FOLDER) -> str:
    """Write every game's sets and their SHA256SUMS into ``folder``; return the SHA-256 of SHA256SUMS
    (run once, when a version is made: :data:`SUMS_SHA256`)."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = []
    for name in games.names():
        for split in SPLITS:
            text = set_text(name, split)
            (folder / f"{name}_{split}.pbn").write_bytes(text.encode())
            lines.append(f"{hashlib.sha256(text.encode()).hexdigest()}  {name}_{split}.pbn\n")
    sums = "".join(lines).encode()
    (folder / SUMS).write_bytes(sums)
    return hashlib.sha256(sums).hexdigest()


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m vint_env.evaluation.bench_sets",
                                description="Write the frozen board sets' files and SHA256SUMS; print the "
                                            "SHA-256 of SHA256SUMS.")
    p.add_argument("--out", type=Path, required=True, help="folder to write the files into")
    args = p.parse_args(argv)
    print(write_sets(args.out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
