"""Tournaments (issue 27), pure: arenas and Swiss systems as events, pairing, scoring
and standings. No I/O, no clock: the time comes in as ``now_ms`` arguments. The
decisions are written in docs/tournaments.md."""
