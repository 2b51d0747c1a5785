"""The `splendor` command line: subcommands, and the address `serve` prints."""

from __future__ import annotations

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
