// A logged-in player's seats without the link (docs/accounts.md, "Seats of an
// account"): a browser that holds no token for a game where the account sits asks
// the server for the seat's token with the session cookie. The seat has one token,
// so asking moves it here: a page holding an older one is told, and takes it back
// only when its player clicks (two logged-in browsers never take it from each other
// by themselves).

import { checkAccount, whenAccountKnown } from "./account.js";
import { ApiError, seatToken } from "./api.js";
import { rememberSeat, seatFor } from "./seats.js";

/** Whether the logged-in account `account` sits in the game of `summary`. */
export function accountSeated(summary, account) {
  if (!account || !summary) return false;
  const id = account.toLowerCase();
  return (summary.seats || []).some((s) => s.account && s.account.toLowerCase() === id);
}

/**
 * The seat of the logged-in account in the game of `summary`, with a new token kept
 * in this browser ({seat, token, name}), or null: a guest, no seat of the account
 * there, or the server refused.
 */
export async function seatBack(gameId, summary) {
  const account = await whenAccountKnown();
  if (!accountSeated(summary, account)) return null;
  try {
    const { seat, token } = await seatToken(gameId);
    rememberSeat(gameId, { seat, token, name: account });
    return seatFor(gameId);
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) await checkAccount(); // ended elsewhere
    return null;
  }
}

/** Draw the current page again (its route), e.g. with a seat's new token. */
export function reroute() {
  window.dispatchEvent(new HashChangeEvent("hashchange"));
}
