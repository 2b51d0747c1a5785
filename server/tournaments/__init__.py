"""The server side of tournaments (issue 27, docs/tournaments.md "Server"): one log
per tournament in Redis (``store``), folded (``record``, ``repository``), changed by
players (``service``) and by the director, which pairs exactly once whichever process
sees the moment first (``director``, ``games``), and created on the operator's
schedule (``schedule``). The rules are the pure core, ``events.tournament``."""
