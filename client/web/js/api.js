// The HTTP half of PROTOCOL.md. Every answer that is not 2xx becomes an ApiError
// carrying the protocol's error code and its sentence (in the page's language: the
// server reads the `lang` cookie, or `?lang=` when the page's address has one).

import { lang, t } from "./i18n.js";

export class ApiError extends Error {
  /** `reason`: the refusal's {key, args} when the server gave one (docs/reasons.md). */
  constructor(status, code, message, reason = null) {
    super(message);
    this.status = status;
    this.code = code;
    this.reason = reason;
  }
}

// The server's time minus this computer's, from the last answer's Date header (whole
// seconds: a gap under 2 s is taken as none). Counts against the server's times
// (presence's away_since) use serverNow().
let skewMs = 0;

export function serverNow() {
  return Date.now() + skewMs;
}

function noteServerTime(response) {
  const date = Date.parse(response.headers.get("date") || "");
  if (!Number.isFinite(date)) return;
  const skew = date - Date.now();
  skewMs = Math.abs(skew) < 2000 ? 0 : skew;
}

// A page opened with `?lang=` asks the server for that language too (the cookie may say another).
const askLanguage = new URLSearchParams(window.location.search).has("lang");

function withLanguage(path) {
  return askLanguage ? `${path}${path.includes("?") ? "&" : "?"}lang=${encodeURIComponent(lang)}` : path;
}

function unreachable() {
  return new ApiError(0, "network", t("The server can't be reached right now."));
}

function answered(status) {
  return t("The server answered {status}.", { status });
}

async function request(method, path, { body, token } = {}) {
  const headers = { Accept: "application/json", "Accept-Language": lang };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  let response;
  try {
    response = await fetch(withLanguage(path), {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: "no-store",
    });
  } catch {
    throw unreachable();
  }
  noteServerTime(response);
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    const code = (data && data.code) || `http_${response.status}`;
    const message = (data && data.message) || answered(response.status);
    const reason = data && data.reason && typeof data.reason.key === "string" ? data.reason : null;
    throw new ApiError(response.status, code, message, reason);
  }
  return data;
}

const game = (id) => `/api/games/${encodeURIComponent(id)}`;

export function createGame({ variant = "classic", players = 2, seed, clock = null, rated = false } = {}) {
  const body = { variant, players };
  if (Number.isInteger(seed)) body.seed = seed;
  if (clock) body.clock = clock;
  if (rated) body.rated = true;
  return request("POST", "/api/games", { body });
}

/** Start or join the finished game's rematch with a seat token of it: {id, seat, token}. */
export function rematchGame(id, token) {
  return request("POST", `${game(id)}/rematch`, { token });
}

/** Decline the finished game's rematch with a seat token of it: {id, accepted, declined}. */
export function declineRematch(id, token) {
  return request("POST", `${game(id)}/rematch/decline`, { token });
}

/** A new token for a seat (docs/http-api.md): with `token`, that token's seat (the
 * old token refused from then on); without, the seat of the account this browser is
 * logged in to. {seat, token}. */
export function seatToken(id, token = null) {
  return request("POST", `${game(id)}/seat-token`, { token });
}

/** `who` is {"name": str} for a person, {"bot": level} for a bot, or {} for the
 * account this browser is logged in to (docs/accounts.md). */
export function takeSeat(id, who) {
  return request("POST", `${game(id)}/seats`, { body: who });
}

/** The lobby's list of one status; `rebuilding` is set on it while the server
 * rebuilds its lists (a game may be missing meanwhile: docs/http-api.md). */
export async function listGames(status, limit = 20) {
  const data = await request("GET", `/api/games?status=${status}&limit=${limit}`);
  return Object.assign(data.games, { rebuilding: Boolean(data.rebuilding) });
}

export function gameSummary(id) {
  return request("GET", game(id));
}

/** A finished game's analysis (docs/analysis.md): the done body, or where it is
 * ({status: "pending", stage, ...}, "not_requested" or "off"). */
export function gameAnalysis(id) {
  return request("GET", `${game(id)}/analysis`);
}

/** Ask for a finished game's analysis (queued once; the same answers as gameAnalysis). */
export function requestAnalysis(id) {
  return request("POST", `${game(id)}/analysis`);
}

/** A finished game's public record, as a file (docs/export.md). */
export function exportUrl(id) {
  return `${game(id)}/export`;
}

export function fetchView(id, { version, token } = {}) {
  const query = version === undefined ? "" : `?version=${version}`;
  return request("GET", `${game(id)}/view${query}`, { token });
}

export async function fetchEvents(id, { after = 0, token } = {}) {
  const data = await request("GET", `${game(id)}/events?after=${after}`, { token });
  return data.events;
}

export function postCommand(id, command, token) {
  return request("POST", `${game(id)}/commands`, { body: command, token });
}

/** The QR code of `text` (a web address) as SVG text, drawn by the server; the text
 * goes in the body, never in the URL (it may carry a seat token). */
export async function qrCode(text) {
  let response;
  try {
    response = await fetch(withLanguage("/api/qr"), { method: "POST", headers: { "Content-Type": "application/json", "Accept-Language": lang }, body: JSON.stringify({ text }), cache: "no-store" });
  } catch {
    throw unreachable();
  }
  if (!response.ok) throw new ApiError(response.status, `http_${response.status}`, answered(response.status));
  return response.text();
}

const catalogs = new Map();

/** The card and noble data of a variant, fetched once per page. */
export function fetchCatalog(variant) {
  if (!catalogs.has(variant)) {
    const pending = request("GET", `/api/catalog/${variant}`);
    pending.catch(() => catalogs.delete(variant));
    catalogs.set(variant, pending);
  }
  return catalogs.get(variant);
}

/** A player's profile: ratings per variant, their history, record and newest games. */
export function playerProfile(username) {
  return request("GET", `/api/players/${encodeURIComponent(username)}`);
}

/** The best `limit` players of a variant: {players: [{username, rating, games, bot}]}. */
export function leaderboard(variant, limit = 100) {
  return request("GET", `/api/leaderboard/${encodeURIComponent(variant)}?limit=${limit}`);
}

// ---------------------------------------------------------------- tournaments (docs/tournaments.md)

const tournament = (id) => `/api/tournaments/${encodeURIComponent(id)}`;

/** {upcoming, running, finished}: lists of tournament summaries. */
export function listTournaments() {
  return request("GET", "/api/tournaments");
}

/** Create a tournament as the logged-in account: {tournament}. */
export function createTournament(body) {
  return request("POST", "/api/tournaments", { body });
}

/** {tournament, standings, games, podium, you}. */
export function fetchTournament(id) {
  return request("GET", tournament(id));
}

/** `what`: "join", "pause" or "leave" (the logged-in account): {you}. */
export function tournamentAction(id, what) {
  return request("POST", `${tournament(id)}/${what}`);
}

/** A player's tournaments, newest first: {tournaments: [{tournament, rank, points, players}]}. */
export function playerTournaments(username) {
  return request("GET", `/api/players/${encodeURIComponent(username)}/tournaments`);
}

// ---------------------------------------------------------------- accounts (docs/accounts.md)
// The session is an HttpOnly cookie: the page never sees it, fetch sends it.

/** The logged-in account, {username, ratings}, or null for a guest. */
export async function fetchMe() {
  try {
    return await request("GET", "/api/me");
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) return null;
    throw err;
  }
}

export function signUp(username, password) {
  return request("POST", "/api/accounts", { body: { username, password } });
}

export function logIn(username, password) {
  return request("POST", "/api/session", { body: { username, password } });
}

export function logOut() {
  return request("DELETE", "/api/session");
}

export function logOutEverywhere() {
  return request("DELETE", "/api/sessions");
}

/** The account's e-mail address (docs/email.md): `{address, verified, notify}`, or
 * null on a server that sends no e-mail (`enabled` false). */
export async function fetchEmail() {
  const found = await request("GET", "/api/me/email");
  return found && found.enabled ? found : null;
}

export function saveEmail(address) {
  return request("PUT", "/api/me/email", { body: { address } });
}

export function removeEmail() {
  return request("DELETE", "/api/me/email");
}

export function resendEmailLink() {
  return request("POST", "/api/me/email/verification");
}

export function saveEmailNotify(notify) {
  return request("PUT", "/api/me/email/notify", { body: { notify } });
}

/** Keep `language` on the logged-in account (docs/accounts.md): its pages open in it. */
export function saveLanguage(language) {
  return request("PUT", "/api/me/language", { body: { language } });
}
