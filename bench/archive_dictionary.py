"""Writes the archive's preset dictionaries (``server/archive_dictionaries``): for
each variant, the events of a few of its games played by bots, as the store keeps
them, one a line, the last ``SIZE`` bytes (DEFLATE reaches 32 KiB back).

    .venv/bin/python bench/archive_dictionary.py [--check]

A dictionary once shipped is never changed (archives are read with it for ever):
this script says whether the files match what it would write (``--check``), and a
new dictionary goes with a new archive format number (server/archive.py).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from archive_games import corpus

from server.archive import FORMAT

SIZE = 32_000
GAMES = 4  # of each kind
SEED = 20_261_124
OUT = Path(__file__).resolve().parent.parent / "server" / "archive_dictionaries"


def dictionaries() -> dict[str, bytes]:
    games = corpus(GAMES, SEED)
    out: dict[str, bytes] = {}
    for variant in sorted({g.variant for g in games}):
        lines = [data for g in games if g.variant == variant for _, data in g.log]
        out[variant] = b"\n".join(lines)[-SIZE:]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare, write nothing")
    args = parser.parse_args()
    differ = False
    for variant, data in dictionaries().items():
        path = OUT / f"{variant}-{FORMAT}.jsonl"
        if args.check:
            same = path.exists() and path.read_bytes() == data
            print(f"{path.name}: {'same' if same else 'differs'}")
            differ |= not same
        else:
            OUT.mkdir(exist_ok=True)
            path.write_bytes(data)
            print(f"{path.name}: {len(data)} bytes")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
