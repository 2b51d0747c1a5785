"""Writes the archive's preset dictionaries (``server/store/archive_dictionaries``) for
the archive format ``server.store.archive_format.FORMAT``: for each variant, the events of a few
of its games played by bots, as the store keeps them, one a line, the last ``SIZE``
bytes (DEFLATE reaches 32 KiB back).

    .venv/bin/python bench/archive_dictionary.py

A dictionary once shipped is never changed (archives are read with it for ever): this
writes only the files that are not there. For a better one, raise ``FORMAT`` in
server/store/archive_format.py, run this, and give tests/store/test_archive.py its digest.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from archive_games import corpus

from server.store.archive_format import FORMAT

SIZE = 32_000
GAMES = 4  # of each kind
SEED = 20_261_124
OUT = Path(__file__).resolve().parent.parent / "server" / "store" / "archive_dictionaries"


def dictionaries() -> dict[str, bytes]:
    games = corpus(GAMES, SEED)
    out: dict[str, bytes] = {}
    for variant in sorted({g.variant for g in games}):
        lines = [data for g in games if g.variant == variant for _, data in g.log]
        out[variant] = b"\n".join(lines)[-SIZE:]
    return out


def main() -> None:
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args()
    for variant, data in dictionaries().items():
        path = OUT / f"{variant}-{FORMAT}.jsonl"
        if path.exists():
            print(f"{path.name}: there already, kept")
            continue
        OUT.mkdir(exist_ok=True)
        path.write_bytes(data)
        print(f"{path.name}: {len(data)} bytes written")


if __name__ == "__main__":
    main()
