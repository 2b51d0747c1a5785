"""The limits on guessing passwords (docs/accounts.md "Log-in limits"), counted in
Redis so that every process counts them: ``LoginLimits``, which the account routes
(server/web/account_routes.py) spend before each password check."""

from __future__ import annotations

from dataclasses import dataclass

from server.common.errors import rate_limited
from server.common.settings import Settings
from server.players.accounts import USERNAME, Accounts, LoginBudget, LoginTicket

__all__ = ["Attempt", "LoginLimits"]


@dataclass(frozen=True)
class Attempt:
    """What ``LoginLimits.reserve`` took for one password check."""

    address: str
    ticket: LoginTicket | None
    counted: bool  # a deletion's confirmation: its address counts it whatever its outcome


class LoginLimits:
    """The limits on guessing passwords (docs/accounts.md "Log-in limits"), all in
    Redis so that every process counts them: per client address, failed log-ins,
    sign-ups and deletions; per account and address, failed log-ins (strict); per
    account, failed log-ins from any address, past which the account backs off for
    the addresses that failed on it, not for one with no recent failure there (so
    nobody can keep an owner out by failing on purpose)."""

    def __init__(self, settings: Settings) -> None:
        self.address_rate = settings.login_rate
        self.address_burst = settings.login_burst
        self.budget = LoginBudget.of(settings)

    async def attempt(self, accounts: Accounts, address: str) -> None:
        """Count a sign-up on its address, or raise ``rate_limited``."""
        wait = await accounts.spend_address(address, self.address_rate, self.address_burst)
        if wait is not None:
            raise rate_limited(wait, "sign_ups")

    async def reserve(
        self, accounts: Accounts, address: str, username: str, *, counted: bool = False
    ) -> Attempt:
        """Take what checking ``username``'s password costs if it proves wrong, before
        it is checked (attempts sent at once can't all pass), or raise
        ``rate_limited`` (nothing taken, whatever the password: the answer must not
        tell a right one from a wrong one). ``counted``: the address counts the
        attempt whatever its outcome (a deletion's confirmation)."""
        wait = await accounts.spend_address(address, self.address_rate, self.address_burst)
        if wait is not None:
            raise rate_limited(wait, "log_ins")
        if not USERNAME.fullmatch(username):  # no account has it: the address counts it
            return Attempt(address, None, counted)
        ticket = await accounts.reserve_login(username, address, self.budget)
        if ticket.wait is None:
            return Attempt(address, ticket, counted)
        if not counted:
            await accounts.refund_address(address, self.address_rate, self.address_burst)
        if ticket.why == "pair":
            raise rate_limited(ticket.wait, "account_log_ins_here")
        raise rate_limited(ticket.wait, "account_log_ins")

    async def right(self, accounts: Accounts, attempt: Attempt) -> None:
        """The password was right: give back what its attempt took (only failures
        count, so an owner who logs in often never runs out)."""
        if not attempt.counted:
            await accounts.refund_address(attempt.address, self.address_rate, self.address_burst)
        if attempt.ticket is not None:
            await accounts.refund_login(attempt.ticket, self.budget)
