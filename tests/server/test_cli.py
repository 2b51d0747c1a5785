"""The `splendor` command line: subcommands, and the address `serve` prints."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from server import cli


def test_serve_is_a_subcommand_with_its_options() -> None:
    """`splendor serve` parses --host, --port and --data-dir."""
    args = cli.parser().parse_args(
        ["serve", "--host", "0.0.0.0", "--port", "9001", "--data-dir", "d"]
    )
    assert (args.command, args.host, args.port, str(args.data_dir)) == (
        "serve",
        "0.0.0.0",
        9001,
        "d",
    )
    assert args.run is cli.serve


def test_a_command_is_required(capsys: pytest.CaptureFixture[str]) -> None:
    """`splendor` alone prints usage and exits with 2."""
    with pytest.raises(SystemExit) as exited:
        cli.main([])
    assert exited.value.code == 2
    assert "serve" in capsys.readouterr().err


def test_the_printed_address_can_be_opened() -> None:
    """A wildcard bind is shown as the loopback address a browser can open."""
    assert cli.open_address("127.0.0.1", 8000) == "http://127.0.0.1:8000/"
    assert cli.open_address("0.0.0.0", 80) == "http://127.0.0.1:80/"
    assert cli.open_address("::", 8000) == "http://[::1]:8000/"
    assert cli.open_address("example.org", 8000) == "http://example.org:8000/"


def test_the_splendor_command_joins_the_servers_tools_and_the_clients() -> None:
    """`splendor` offers the server's tools with the client's watch and bot after serve;
    `python -m server.cli` only the server's own (server/ imports nothing of client/)."""
    from splendor import cli as splendor_cli

    server_names = [sub.name for sub in cli.SUBCOMMANDS]
    assert server_names[0] == "serve" and {"bots", "export", "import"} <= set(server_names)
    assert not {"watch", "bot"} & set(server_names)
    names = [sub.name for sub in splendor_cli.SUBCOMMANDS]
    assert names == ["serve", "watch", "bot", *server_names[1:]]
    args = splendor_cli.parser().parse_args(["bot", "--server", "http://h", "--level", "mcts"])
    assert (args.run, args.level) == (splendor_cli.bot, "mcts")


def test_a_wrong_schedule_stops_serve_with_one_line(tmp_path: Path) -> None:
    """`splendor serve` with a SPLENDOR_SCHEDULED_TOURNAMENTS that does not parse says which entry in one line and exits with 2, as for every other wrong setting (no traceback)."""
    env = {**os.environ, "SPLENDOR_SCHEDULED_TOURNAMENTS": "chess 3+2 arena 60m hourly"}
    env.pop("REDIS_URL", None)
    command = [sys.executable, "-m", "server.cli", "serve", "--port", "9", "--data-dir"]
    done = subprocess.run(
        [*command, str(tmp_path)], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [
        "splendor serve: SPLENDOR_SCHEDULED_TOURNAMENTS: 'chess 3+2 arena 60m hourly' is not"
        " '<classic|duel> <min>+<inc> <arena|swiss> <N>m|<N>r hourly[@:MM]|daily@HH:MM'"
    ]
