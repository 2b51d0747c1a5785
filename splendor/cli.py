"""The ``splendor`` command: the server's subcommands (``server.cli``: ``serve``,
``bots``, ``export``, ``import``) and the client's (``watch``, ``bot``: plain clients
of the wire protocol, ``client.commands``)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from catalogs import LANGUAGES
from server import cli as server_cli
from server.cli import Subcommand


def _watch_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("url", help="a game's page (http://host:8000/#/watch/ID) or the server")
    parser.add_argument("--game", help="the game id, when URL is the server's address")
    parser.add_argument("--token", help="a seat token, to watch as that player")
    parser.add_argument(
        "--lang",
        choices=LANGUAGES,
        help="the table's words and the server's messages (default: from LANG, else en)",
    )


def watch(args: argparse.Namespace) -> int:
    import asyncio

    from client.commands import watch as follow
    from client.terminal import environment_language

    lang = args.lang or environment_language()
    try:
        return asyncio.run(follow(args.url, args.game, token=args.token, lang=lang))
    except KeyboardInterrupt:
        return 0


def _bot_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--server", required=True, help="the server's address or a game's page")
    parser.add_argument("--game", help="the game id (unless --server is a game's page)")
    parser.add_argument("--level", default="greedy", choices=["random", "greedy", "mcts"])
    parser.add_argument("--name", help="the bot's name at the table")


def bot(args: argparse.Namespace) -> int:
    import asyncio

    from client.commands import play_bot

    return asyncio.run(play_bot(args.server, args.game, args.level, args.name))


_CLIENT = [
    Subcommand("watch", "follow a live game in the terminal", _watch_arguments, watch),
    Subcommand("bot", "join a game's seat as a bot and play it", _bot_arguments, bot),
]

# The server's tools with the client's after ``serve``, the order ``--help`` lists.
SUBCOMMANDS: list[Subcommand] = [
    server_cli.SUBCOMMANDS[0],
    *_CLIENT,
    *server_cli.SUBCOMMANDS[1:],
]


def parser() -> argparse.ArgumentParser:
    return server_cli.parser(SUBCOMMANDS)


def main(argv: Sequence[str] | None = None) -> int:
    return server_cli.main(argv, SUBCOMMANDS)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
