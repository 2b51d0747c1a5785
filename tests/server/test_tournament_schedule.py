"""Tournaments on the operator's schedule (server/tournaments/schedule.py,
docs/operations.md "Scheduled tournaments"): the setting's syntax, each slot created
once an hour ahead whichever processes announce it, and a wrong value refused at start."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest
import redis.asyncio as aioredis

from server.common.settings import Settings, SettingsError
from server.tournaments.schedule import parse_schedules
from server.tournaments.service import TournamentService
from server.web.app import create_app


def ms(text: str) -> int:
    return int(datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp() * 1000)


def test_the_settings_syntax() -> None:
    """Entries split on ';' give their variant, clock, kind, length and time; a wrong entry names itself."""
    hourly, daily = parse_schedules(
        " duel 3+2 arena 60m hourly ; classic 5+3 swiss 5r daily@20:30;"
    )
    assert (hourly.variant, hourly.minutes, hourly.increment, hourly.kind) == (
        "duel",
        3,
        2,
        "arena",
    )
    assert (hourly.length, hourly.hourly, hourly.minute) == (60, True, 0)
    assert (daily.kind, daily.length, daily.hourly, daily.hour, daily.minute) == (
        "swiss",
        5,
        False,
        20,
        30,
    )
    for wrong in (
        "duel 3+2 arena 5r hourly",
        "duel 3+2 arena 300m hourly",
        "chess 3+2 arena 60m hourly",
        "duel 3+2 swiss 5r daily@25:00",
        "duel 3+2 arena 60m weekly",
    ):
        with pytest.raises(ValueError, match=r"duel|chess"):
            parse_schedules(wrong)
    assert parse_schedules("") == ()


def test_slots_are_announced_an_hour_ahead() -> None:
    """At 14:10 an hourly arena has its 15:00 slot to create (and 14:00's, started 10 minutes ago, no longer); at 14:03 the 14:00 one is still made."""
    [hourly] = parse_schedules("duel 3+2 arena 60m hourly")
    assert hourly.slots(ms("2026-11-28T14:10:00")) == [ms("2026-11-28T15:00:00")]
    assert hourly.slots(ms("2026-11-28T14:03:00")) == [
        ms("2026-11-28T14:00:00"),
        ms("2026-11-28T15:00:00"),
    ]
    [daily] = parse_schedules("classic 5+3 arena 30m daily@20:00")
    assert daily.slots(ms("2026-11-28T18:30:00")) == []
    assert daily.slots(ms("2026-11-28T19:30:00")) == [ms("2026-11-28T20:00:00")]
    assert hourly.slot_id(ms("2026-11-28T15:00:00")) == "s_duel_3_2_arena_60m_202611281500"


async def test_two_processes_create_each_slot_once(redis_client: aioredis.Redis) -> None:
    """Two processes announcing the same schedule at once create one tournament, listed upcoming, with no creator and no name (each reader names it)."""
    now = ms("2026-11-28T14:10:00")
    processes = [
        (
            TournamentService(redis_client, clock_ms=lambda: now),
            parse_schedules("duel 3+2 arena 60m hourly"),
        )
        for _ in range(2)
    ]
    await asyncio.gather(*(s.announce(t, now) for t, (s,) in processes))
    service = processes[0][0]
    listed = await service.listing()
    [summary] = listed["upcoming"]
    assert summary["id"] == "s_duel_3_2_arena_60m_202611281500"
    assert summary["created_by"] is None and summary["name"] == ""
    assert summary["starts_ms"] == ms("2026-11-28T15:00:00")
    assert summary["ends_ms"] == ms("2026-11-28T16:00:00")
    assert len(await service.store.read(summary["id"])) == 1


def test_a_wrong_schedule_stops_the_server_at_start() -> None:
    """A value of SPLENDOR_SCHEDULED_TOURNAMENTS that does not parse is a SettingsError naming the setting."""
    with pytest.raises(SettingsError, match="SPLENDOR_SCHEDULED_TOURNAMENTS"):
        create_app(Settings(scheduled_tournaments="duel 3+2 arena 60m often"))
    settings = Settings.from_env({"SPLENDOR_SCHEDULED_TOURNAMENTS": "duel 3+2 arena 60m hourly"})
    assert settings.scheduled_tournaments == "duel 3+2 arena 60m hourly"


async def test_a_schedule_keeps_only_its_current_slots(redis_client: aioredis.Redis) -> None:
    """A day of hourly announcements leaves the schedule remembering only the slots it may still create, not one id an hour for ever."""
    service = TournamentService(redis_client)
    [hourly] = parse_schedules("duel 3+2 arena 60m hourly")
    for hour in range(24):
        now = ms("2026-11-28T00:10:00") + hour * 3_600_000
        service.clock_ms = lambda now=now: now  # type: ignore[misc]
        await hourly.announce(service, now)
    assert hourly._made == {"s_duel_3_2_arena_60m_202611290000"}
