"""What the server refuses, as stable keys with arguments: the server's part of the
reasons (the rules' part is ``events.reasons.REASONS``), each key's English template
marked for the ``server`` catalog. docs/reasons.md lists every key and its arguments.

Arguments follow ``events.reasons``: numbers are written in the reader's digits, a
``status`` is translated (context ``status``); ``detail`` is what a library said of
the request (msgspec's words on a JSON body, Redis's on a lost connection) and stays
in English, like names, ids and what the client sent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from events.reasons import N_, REASONS, Template

SERVER_REASONS: Final[Mapping[str, Template]] = {
    # The request itself: its size, its JSON, its parameters.
    "request.body_too_large": N_("The request body is larger than {most} bytes."),
    "request.length_not_a_number": N_("Content-Length is not a number."),
    "request.not_an_integer": N_("{name} must be an integer, not '{value}'."),
    "request.invalid": N_("Invalid request: {detail}."),
    "request.invalid_action": N_("Invalid action: {detail}."),
    "request.invalid_message": N_("Invalid message: {detail}."),
    "request.malformed": N_("Malformed JSON: {detail}."),
    "request.not_utf8": N_("Malformed JSON: a string is not UTF-8."),
    "request.too_deep": N_("Malformed JSON: nested too deeply."),
    "request.message_too_large": N_("A message may have at most {most} bytes."),
    "request.status": N_("status must be one of {statuses}, not '{value}'."),
    "request.limit": N_("limit must be 1 to {most}, not {value}."),
    "request.after": N_("after must be 0 or more."),
    "request.since": N_("since must be a version (an integer), not '{value}'."),
    "request.since_negative": N_("since must be 0 or more."),
    "request.version": N_("version must be 1 or more: version 1 is the game's creation."),
    "request.command_id": N_("command_id must be 1 to {most} characters."),
    "request.expected_version": N_("expected_version must be 0 or more."),
    "request.name_or_bot": N_(
        'Give either "name" (a player) or "bot" (a bot level), not both; or neither to sit'
        " as your account when logged in."
    ),
    "request.name_hidden": N_(
        "name must not hold control, bidirectional or invisible characters (it holds {char})."
    ),
    "request.name_length": N_("name must be 1 to {most} characters."),
    "request.qr_text": N_(
        "text must be a web address (http:// or https://) of at most {most} characters."
    ),
    # Time controls.
    "clock.both_kinds": N_(
        'A clock is real-time ("initial", "increment") or correspondence ("per_move"), not both.'
    ),
    "clock.per_move": N_("per_move must be 1 to {most} seconds."),
    "clock.missing": N_('A clock needs "initial" (and "increment") or "per_move", in seconds.'),
    "clock.initial": N_("initial must be 1 to {most} seconds."),
    "clock.increment": N_("increment must be 0 to {most} seconds."),
    # Routes.
    "route.not_found": N_("There is no {method} {path}."),
    "route.method": N_("{path} does not take {method}: use {allowed}."),
    "route.websocket_only": N_("{path} is a websocket: connect with Upgrade: websocket."),
    "route.nothing_here": N_("There is nothing at {path}."),
    "http.error": N_("The request was refused: {detail}."),
    "language.unknown": N_("There is no language '{lang}': one of {known}."),
    # Games.
    "variant.unknown": N_("Unknown variant '{variant}': this server plays {known}."),
    "variant.none": N_("There is no variant '{variant}': try {known}."),
    "variant.players": N_("{variant} is played by {least} to {most} players, not {count}."),
    "rated.seed": N_("A rated game can't have a seed: its draws must be nobody's choice."),
    "rated.clock": N_(
        'A rated game needs a time control: "clock": {{"initial", "increment"}} or {{"per_move"}}.'
    ),
    "rated.create_needs_account": N_(
        "A rated game is created by a player logged in to an account."
    ),
    "game.not_found": N_("There is no game '{game}'."),
    "game.other_variant": N_("Game '{game}' is a {variant} game, not served here."),
    "game.no_free_id": N_("Could not find a free game id; try again."),
    "game.busy": N_("The game changed several times while this was decided: send it again."),
    "game.version_ahead": N_(
        "There is no version {version} yet: the game is at version {current}."
    ),
    "game.stale_version": N_(
        "expected_version {expected} is stale: the game is at version {actual}."
    ),
    "game.rematch_seats": N_(
        "This game is the rematch of {game}: its seats are kept for that game's players,"
        " who join it through its rematch."
    ),
    "rematch.not_over": N_("Game {game} is not over: a rematch can be started once it has ended."),
    "rematch.not_offered": N_("Game {game} has no rematch offered: there is nothing to decline."),
    "rematch.declined": N_("You declined the rematch of game {game}: it can't be joined now."),
    "rematch.accepted": N_("You accepted the rematch of game {game}: it can't be declined now."),
    "export.not_finished": N_("Game {game} is {status}: only a finished game can be exported."),
    "analysis.not_finished": N_("Game {game} is {status}: only a finished game is analysed."),
    "analysis.off": N_("This server analyses no game."),
    # Seats and their tokens.
    "token.missing": N_("This needs a seat token: Authorization: Bearer <token>."),
    "token.not_here": N_("This token is not a seat token of this game."),
    "token.header": N_("The Authorization header must be: Bearer <seat token>."),
    "token.revoked": N_(
        "This seat token no longer acts for its seat: the seat was given a new token"
        " (its player logged out everywhere, or made a new link for another device)."
    ),
    "token.spectator": N_("Spectators cannot act: connect with ?token=<seat token> to play."),
    "token.log_in_for_seat": N_(
        "Log in to get your seat's token, or send the seat's token: Bearer <token>."
    ),
    "seat.not_replaceable": N_(
        "Seat {seat} of game {game} has no token to replace: the game is archived (its seats"
        " are final), or the seat is not taken."
    ),
    "seat.not_of_account": N_("{username} holds no seat in game {game}."),
    # Accounts, players, leaderboards.
    "account.username_form": N_(
        "A username is 3 to 20 characters, each a letter (A-Z, a-z), a digit, _ or -."
    ),
    "account.password_length": N_("A password is {least} to {most} characters."),
    "account.other_site": N_("A request from another site ({site}) can't use your session."),
    "account.not_logged_in": N_("You are not logged in."),
    "account.username_taken": N_("The username {username} is taken."),
    "account.wrong_login": N_("Wrong username or password."),
    "account.wrong_password": N_("Wrong password."),
    "account.session_ended": N_("Your session ended: log in again."),
    "account.deleted_unrated": N_(
        "The account {account} was deleted: it plays no more rated games."
    ),
    "account.busy": N_("The account changed several times while this was saved: send it again."),
    "account.language": N_("language must be one of {known}, not '{value}'."),
    # E-mail (docs/email.md).
    "email.off": N_("This server sends no e-mail."),
    "email.address": N_(
        "An e-mail address is at most {most} characters: one @, then a domain with a dot,"
        " like ana@example.org."
    ),
    "email.no_address": N_("Your account has no e-mail address."),
    "email.nothing_to_verify": N_("There is no address waiting to be verified: add one first."),
    "email.resend_wait": N_(
        "An e-mail was just sent: wait {seconds} second before asking again.",
        "An e-mail was just sent: wait {seconds} seconds before asking again.",
        "seconds",
    ),
    "email.link_unknown": N_(
        "This link does not work: it was used already, or a newer one replaced it."
    ),
    "email.link_expired": N_("This link has expired: ask for a new one in your account's menu."),
    "email.unsubscribe_unknown": N_("This unsubscribe link does not work."),
    "player.not_found": N_("There is no player '{player}'."),
    "player.deleted": N_("The account '{player}' was deleted (docs/accounts.md)."),
    "leaderboard.not_found": N_("There is no leaderboard '{variant}': one of {known}."),
    # Quick pairing.
    "pairing.no_pool": N_(
        "Quick pairing has pools for variant classic or duel and clock {clocks} (not"
        " '{variant}' and '{clock}')."
    ),
    "pairing.players": N_(
        "players must be 2, or 3 or 4 for classic (not '{value}' for {variant})."
    ),
    "pairing.rated_needs_account": N_("Log in to wait in a rated pool: guests play casual games."),
    "pairing.fill_two": N_("Bots fill only tables of three or four players, not this pool's."),
    "pairing.ticket": N_("ticket must be the ticket this server gave (16 to 64 characters)."),
    "pairing.elsewhere": N_(
        "This account stopped looking for a game here: it started looking elsewhere (another"
        " tab or window), or logged out everywhere."
    ),
    # Table chat (docs/chat.md).
    "chat.off": N_("Chat is turned off on this server."),
    "chat.presets_only": N_("This server takes only the preset phrases in chat, not text."),
    "chat.text_or_preset": N_('A chat message has either "text" or "preset", not both.'),
    "chat.chat_id": N_("chat_id must be 1 to {most} characters."),
    "chat.text_length": N_("A chat message is 1 to {most} characters."),
    "chat.text_hidden": N_(
        "A chat message must not hold control, bidirectional or invisible characters (it"
        " holds {char})."
    ),
    "chat.repeated": N_("You just sent that message."),
    "chat.room": N_("There is no chat room '{room}': one of {known}."),
    "chat.spectators_during_game": N_(
        "The players read the spectators' chat only once the game is over."
    ),
    # Limits.
    "metrics.token_missing": N_(
        "The metrics need the metrics token (SPLENDOR_METRICS_TOKEN): Authorization: Bearer"
        " <token>."
    ),
    "metrics.token_wrong": N_("This is not the metrics token (SPLENDOR_METRICS_TOKEN)."),
    "metrics.none": N_("There are no metrics here."),
    "rate_limited.commands": N_("Too many commands: try again in {wait} s."),
    "rate_limited.chat": N_("Too many chat messages: try again in {wait} s."),
    "rate_limited.games": N_("Too many games created from your address: try again in {wait} s."),
    "rate_limited.seats": N_("Too many seats joined from your address: try again in {wait} s."),
    "rate_limited.analyses": N_("Too many analyses asked for: try again in {wait} s."),
    "rate_limited.authentications": N_(
        "Too many failed authentications from your address: try again in {wait} s."
    ),
    "rate_limited.sign_ups": N_(
        "Too many sign-ups, deletions and failed log-ins from your address: try again in {wait} s."
    ),
    "rate_limited.log_ins": N_("Too many failed log-ins from your address: try again in {wait} s."),
    "rate_limited.account_log_ins_here": N_(
        "Too many failed log-ins to this account from your address: try again in {wait} s."
    ),
    "rate_limited.account_log_ins": N_(
        "Too many failed log-ins to this account: try again in {wait} s."
    ),
    "rate_limited.tournaments": N_(
        "You have created as many tournaments as you may today: try again in {wait} s."
    ),
    # Tournaments (docs/tournaments.md "Server").
    "tournament.not_found": N_("There is no tournament '{tournament}'."),
    "tournament.no_game": N_("Game '{game}' is not a tournament's game."),
    "tournament.log_in": N_("Log in to an account to take part in tournaments."),
    "tournament.busy": N_(
        "The tournament changed several times while this was decided: send it again."
    ),
    "tournament.too_many_open": N_(
        "You may have at most {most} tournaments of yours upcoming or running."
    ),
    "tournament.full": N_("This tournament is full: it takes at most {most} players."),
    "tournament.starts_in": N_("starts_in_s must be 0 to {most} seconds."),
    "tournament.duration": N_("duration_min must be {least} to {most} minutes."),
    "tournament.rounds": N_("rounds must be {least} to {most}."),
    "tournament.kind_settings": N_(
        "An arena takes duration_min and a Swiss tournament takes rounds, not the other."
    ),
    "tournament.already_joined": N_("You are in this tournament already."),
    "tournament.left_tournament": N_("You left this tournament: you can't join it again."),
    "tournament.not_in_tournament": N_("You are not in this tournament."),
    "tournament.already_paused": N_("You are paused already: join again to play."),
    "tournament.tournament_over": N_("This tournament is over."),
    # The server itself.
    "store.unavailable": N_(
        "The server can't reach its game store right now (Redis: {detail}). It reconnects by"
        " itself: try again in a few seconds; a move sent again with the same command_id is"
        " applied once."
    ),
    "store.no_replica": N_(
        "This game's part of the game store has no replica right now, and this server"
        " keeps a move only once a replica has it: the game can be watched, and moves"
        " wait until a replica is back. Try again in a while; a move sent again with the"
        " same command_id is applied once."
    ),
    "server.draining": N_(
        "This server process is stopping (draining for a restart): send new clients to another."
    ),
    "server.error": N_("The server failed to answer (a bug: please report it)."),
    "http.bad_request": N_("Invalid HTTP request received."),
    "http.headers_too_large": N_("The headers are larger than {most} bytes."),
    "http.target_too_long": N_("The request target is longer than {most} bytes."),
    "http.too_slow": N_("The request did not arrive whole within {most} s."),
    "http.too_many_headers": N_("A request may have at most {most} headers."),
    "http.header_line_too_long": N_("A header line is longer than {most} bytes."),
}

ALL_REASONS: Final[Mapping[str, Template]] = {**REASONS, **SERVER_REASONS}
"""Every key a client may meet in an error's ``reason``."""


def template_of(key: str) -> Template:
    """The English template of a reason (``KeyError`` for a key nobody defined)."""
    return ALL_REASONS[key]
