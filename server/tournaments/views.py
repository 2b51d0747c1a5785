"""What the API and the websocket show of a tournament (docs/tournaments.md "Server",
/work's TOURNAMENT_API contract in docs/http-api.md): its summary, its page (standings,
games, podium) and a signed-in player's part in it."""

from __future__ import annotations

from typing import Any, Final, Literal

from events.tournament.log import PauseReason
from events.tournament.standings import Player, standings
from server.tournaments.record import TournamentRecord

__all__ = ["creator", "detail", "mask", "status_of", "summary", "you"]

GAMES_SHOWN: Final = 100
PODIUM: Final = 3

Status = Literal["upcoming", "running", "finished"]


def status_of(record: TournamentRecord, now_ms: int) -> Status:
    t = record.tournament
    if t.ended:
        return "finished"
    return "running" if now_ms >= t.starts_ms else "upcoming"


def summary(record: TournamentRecord, now_ms: int) -> dict[str, Any]:
    """The contract's ``TournamentSummary``."""
    t = record.tournament
    return {
        "id": record.id,
        "name": record.meta.get("name", ""),  # "": unnamed, named by the reader
        "kind": t.kind,
        "variant": t.variant,
        "clock": {"initial": t.clock.initial, "increment": t.clock.increment},
        "starts_ms": t.starts_ms,
        "ends_ms": t.ends_ms,
        "rounds": t.rounds,
        "round": t.round,
        "status": status_of(record, now_ms),
        "players": len(t.players),
        "created_by": creator(record),
        "rated": True,
    }


def paused_for(p: Player) -> PauseReason | None:
    """Why a paused player is paused ("forfeit": the director paused them for a
    forfeited game), None for one not paused or who chose to pause."""
    return p.paused_for if not p.active and not p.left else None


def standing_lines(record: TournamentRecord) -> list[dict[str, Any]]:
    t = record.tournament
    lines = []
    for s in standings(t):
        p = t.players[s.player]
        line: dict[str, Any] = {
            "rank": s.rank,
            "player": s.player,
            "points": s.points,
            "games": s.games,
            "wins": sum(1 for g in p.games if g.outcome == "win"),
            "streak": s.on_streak,
            "rating": round(p.rating),
            "paused": not p.active and not p.left,
            "paused_for": paused_for(p),
            "left": p.left,
        }
        if t.kind == "swiss":
            line["buchholz"] = float(s.buchholz)
            line["sonneborn_berger"] = float(s.sonneborn_berger)
        lines.append(line)
    return lines


def podium(lines: list[dict[str, Any]]) -> list[str]:
    """The first three of the final standings among those who took part: a player
    who finished no game and scored nothing (joined, never paired, or every game
    still in play at an arena's end) is not on the podium, whatever their rank."""
    took_part = [line for line in lines if line["games"] > 0 or line["points"] > 0]
    return [line["player"] for line in took_part[:PODIUM]]


def detail(record: TournamentRecord, now_ms: int) -> dict[str, Any]:
    """``GET /api/tournaments/{id}`` without ``you``: the websocket's message too."""
    lines = standing_lines(record)
    finished = record.tournament.ended
    return {
        "tournament": summary(record, now_ms),
        "standings": lines,
        "games": [
            {
                "game_id": g.game_id,
                "first": g.first,
                "second": g.second,
                "round": g.round,
                "status": g.status,
                "winner": g.winner,
            }
            for g in reversed([g for g in record.games if record.shown(g)][-GAMES_SHOWN:])
        ],
        "podium": podium(lines) if finished else None,
        "bye": bye_of_round(record),
    }


def bye_of_round(record: TournamentRecord) -> str | None:
    """The player with a Swiss's bye in its current round, once the round is shown."""
    found = record.byes.get(record.tournament.round)
    return found[0] if found is not None and record.shown_version(found[1]) else None


def mask(page: dict[str, Any], deleted: set[str], shown: str) -> None:
    """Show the players of ``deleted`` accounts (ids: lowercase) as ``shown`` in a
    page, in place, at read time (the log keeps their names; docs/accounts.md)."""

    def named(name: str | None) -> str | None:
        return shown if name is not None and name.lower() in deleted else name

    for line in page["standings"]:
        line["player"] = named(line["player"])
    for game in page["games"]:
        for key in ("first", "second", "winner"):
            game[key] = named(game[key])
    if "bye" in page:
        page["bye"] = named(page["bye"])
    if page["podium"] is not None:
        page["podium"] = [named(name) for name in page["podium"]]
    page["tournament"]["created_by"] = named(page["tournament"]["created_by"])


def creator(record: TournamentRecord) -> str | None:
    """The username of the account that created the tournament (None: the schedule)."""
    return record.meta.get("created_by") or None


def player_in(record: TournamentRecord, username: str) -> str | None:
    """The name ``username`` plays under in the tournament (names compare without case)."""
    wanted = username.lower()
    return next((p for p in record.tournament.players if p.lower() == wanted), None)


def you(record: TournamentRecord, username: str | None) -> dict[str, Any] | None:
    """A signed-in player's part: joined, paused, left, and their game in play."""
    if username is None:
        return None
    name = player_in(record, username)
    p = None if name is None else record.tournament.players[name]
    playing = None if name is None else record.playing.get(name)
    return {
        "joined": p is not None,
        "paused": p is not None and not p.active and not p.left,
        "paused_for": None if p is None else paused_for(p),
        "left": p is not None and p.left,
        "game_id": None if playing is None or not record.shown(playing) else playing.game_id,
    }
