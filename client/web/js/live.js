// The live half of PROTOCOL.md: one websocket per table that keeps a view up to
// date by applying diffs, catches up after a drop by reconnecting with
// `since=<last version>`, asks for a snapshot (`resync`) on a version gap, and
// sends commands, again with the same `command_id` on each new socket until one is
// answered (the server applies a command id once).
//
// Reconnecting backs off exponentially with jitter, never faster than one attempt a
// second: a server that can't reach its Redis refuses sockets (`unavailable`, close
// 4503) and must not be flooded by every open page. A served socket closed with 1012
// (the server is restarting) reconnects at once, with a little jitter.

import { lang, t } from "./i18n.js";
import { applyPatch, PatchError } from "./patch.js";

const PING_EVERY_MS = 20000;
const SILENT_LIMIT_MS = 50000; // no frame at all for this long: the socket is dead
const RETRY_FIRST_MS = 1000; // the first reconnect's wait, and the least between two
const RETRY_MAX_MS = 15000;
const PROBLEM_AFTER = 2; // reconnects failed before "Reconnecting…" turns to a problem
const CLOSE_UNAVAILABLE = 4503; // the server can't reach its store for now
const CLOSE_RESTART = 1012; // the server is restarting (draining): go on elsewhere at once
const RESTART_JITTER_MS = 250;

export class CommandError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

function newCommandId() {
  if (window.crypto && typeof window.crypto.randomUUID === "function") return window.crypto.randomUUID();
  // randomUUID needs a secure context; plain http on a LAN address has none.
  const bytes = window.crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The wait before reconnect number `attempt` (0 first): doubling from 1 s up to 15 s,
 * each stretched by up to half at random so that pages dropped together come back
 * spread out. Never under a second. */
/** The wait before reconnecting after a served socket was closed with 1012 (the
 * server is restarting): at once, spread over a quarter of a second so that every
 * page of the process does not come back in the same instant. */
export function restartDelay(random = Math.random) {
  return RESTART_JITTER_MS * random();
}

export function retryDelay(attempt, random = Math.random) {
  const base = Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** Math.min(attempt, 16));
  return base * (1 + 0.5 * random());
}

/**
 * Callbacks: onView(view, {event, snapshot}),
 * onState("connecting"|"live"|"reconnecting"|"problem"|"closed") ("problem": the server
 * says it can't serve for now, or reconnecting keeps failing; `problem` holds its words),
 * onProblem({code, message}) for errors not tied to a command,
 * onPresence({seats, away_since}), onRematch({id}) and onAudience({spectators, accounts})
 * (docs/live.md: not versioned),
 * onRefused({code, message}) when the server refuses this page's seat token (it was
 * replaced: docs/accounts.md, "Seats of an account"); the connection is closed then;
 * onChat(message) for the table chat (docs/chat.md): `chat`, `chat_history`, and the
 * `error` refusing a chat message (it has a chat_id).
 */
export class LiveGame {
  constructor({ gameId, token = null, onView, onState = () => {}, onProblem = () => {}, onPresence = () => {}, onRematch = () => {}, onAudience = () => {}, onRefused = () => {}, onChat = () => {} }) {
    this.gameId = gameId;
    this.token = token;
    this.onView = onView;
    this.onState = onState;
    this.onProblem = onProblem;
    this.onPresence = onPresence;
    this.onRematch = onRematch;
    this.onAudience = onAudience;
    this.onRefused = onRefused;
    this.onChat = onChat;
    this.view = null;
    this.version = 0;
    this.socket = null;
    this.state = "connecting";
    this.stopped = false;
    this.attempt = 0;
    this.lastAttemptAt = -Infinity;
    this.established = false; // the socket has had a frame: the server took it
    this.problem = null; // {code, message}: why the connection is in trouble
    this.awaitingSnapshot = false;
    this.pending = new Map(); // command_id -> {message, resolve, reject, sentOn}
    this.lastFrameAt = 0;
    this.timers = new Set();
    this.onOnline = () => this.reconnectSoon(0);
  }

  start() {
    window.addEventListener("online", this.onOnline);
    this.connect();
    this.heartbeat = window.setInterval(() => this.keepAlive(), PING_EVERY_MS / 2);
  }

  stop() {
    this.stopped = true;
    window.removeEventListener("online", this.onOnline);
    window.clearInterval(this.heartbeat);
    for (const t of this.timers) window.clearTimeout(t);
    this.timers.clear();
    this.pending.clear();
    if (this.socket) {
      this.socket.onclose = null;
      this.socket.close(1000, "page left");
      this.socket = null;
    }
  }

  setState(state) {
    if (this.state !== state) {
      this.state = state;
      this.onState(state);
    }
  }

  url() {
    const scheme = window.location.protocol === "https:" ? "wss" : "ws";
    const params = new URLSearchParams({ lang });
    if (this.token) params.set("token", this.token);
    if (this.view) params.set("since", String(this.version));
    return `${scheme}://${window.location.host}/ws/games/${encodeURIComponent(this.gameId)}?${params}`;
  }

  connect() {
    if (this.stopped) return;
    this.lastAttemptAt = Date.now();
    this.established = false;
    let socket;
    try {
      socket = new WebSocket(this.url());
    } catch {
      this.reconnectSoon();
      return;
    }
    this.socket = socket;
    this.awaitingSnapshot = !this.view;
    socket.onopen = () => {
      this.lastFrameAt = Date.now();
      // Open is not yet served: the server may still refuse the socket. Its pong
      // (or the snapshot, or a diff) says it took it.
      this.sendFrame({ type: "ping" });
    };
    socket.onmessage = (e) => this.receive(e.data);
    socket.onclose = (e) => {
      if (this.socket !== socket) return;
      const wasServed = this.established;
      this.socket = null;
      this.established = false;
      if (this.stopped) return;
      if (e.code === CLOSE_RESTART && wasServed) {
        // A rolling restart: reconnect at once with since (the load balancer sends the
        // page to another process). Turned away again, it backs off as usual.
        this.setState("reconnecting");
        this.reconnectSoon(restartDelay(), { atOnce: true });
        return;
      }
      if (e.code === CLOSE_UNAVAILABLE && !this.problem) {
        this.problem = { code: "unavailable", message: e.reason || t("The server can't serve this game right now.") };
      }
      const failing = this.problem || this.attempt >= PROBLEM_AFTER;
      this.setState(failing ? "problem" : "reconnecting");
      this.reconnectSoon();
    };
    socket.onerror = () => {}; // onclose follows and handles it
  }

  /** The socket is served: live again, and the unanswered commands go once more. */
  served() {
    this.established = true;
    this.attempt = 0;
    this.problem = null;
    this.setState("live");
    // Commands not answered on an earlier socket: the same command_id is applied
    // once, so sending it again is safe and gets the one answer.
    for (const p of this.pending.values()) if (p.sentOn !== this.socket) this.transmit(p);
  }

  reconnectSoon(delay, { atOnce = false } = {}) {
    if (this.stopped || this.reconnectTimer) return;
    const wanted = delay ?? retryDelay(this.attempt);
    // Never two attempts less than a second apart, whatever asked for this one, but
    // after a restart's 1012 on a socket that was served.
    const floor = atOnce ? 0 : this.lastAttemptAt + RETRY_FIRST_MS - Date.now();
    const wait = Math.max(wanted, floor, 0);
    this.attempt += 1;
    this.reconnectTimer = this.later(() => {
      this.reconnectTimer = null;
      if (!this.socket) this.connect();
    }, wait);
  }

  later(fn, ms) {
    const t = window.setTimeout(() => {
      this.timers.delete(t);
      fn();
    }, ms);
    this.timers.add(t);
    return t;
  }

  keepAlive() {
    const socket = this.socket;
    if (!socket || socket.readyState !== WebSocket.OPEN) return;
    if (Date.now() - this.lastFrameAt > SILENT_LIMIT_MS) {
      socket.close(4000, "silent");
      return;
    }
    this.sendFrame({ type: "ping" });
  }

  sendFrame(frame) {
    if (this.socket && this.socket.readyState === WebSocket.OPEN) {
      this.socket.send(JSON.stringify(frame));
      return true;
    }
    return false;
  }

  /** Ask for a fresh snapshot; diffs are ignored until it comes. */
  resync() {
    if (this.sendFrame({ type: "resync" })) {
      this.awaitingSnapshot = true;
      // No snapshot in time: start over on a fresh socket.
      const socket = this.socket;
      this.later(() => {
        if (this.awaitingSnapshot && this.socket === socket && socket) socket.close(4001, "resync timeout");
      }, 5000);
    }
  }

  receive(data) {
    this.lastFrameAt = Date.now();
    let msg;
    try {
      msg = JSON.parse(data);
    } catch {
      return;
    }
    if (!this.established && msg.type !== "error") this.served();
    switch (msg.type) {
      case "snapshot":
        this.awaitingSnapshot = false;
        this.view = msg.view;
        this.version = msg.version;
        this.onView(this.view, { snapshot: true, event: null });
        break;
      case "diff":
        this.applyDiff(msg);
        break;
      case "ack":
        this.settle(msg.command_id, (p) => p.resolve({ version: msg.version }));
        break;
      case "error":
        this.receiveError(msg);
        break;
      case "presence":
        this.onPresence(msg);
        break;
      case "rematch":
        this.onRematch(msg);
        break;
      case "audience":
        this.onAudience(msg);
        break;
      case "chat":
      case "chat_history":
        this.onChat(msg);
        break;
      default:
        break; // pong, and anything newer than this page
    }
  }

  applyDiff(msg) {
    if (this.awaitingSnapshot) return;
    if (!this.view) {
      this.resync();
      return;
    }
    if (msg.version <= this.version) return; // already seen
    if (msg.version !== this.version + 1) {
      this.resync();
      return;
    }
    let next;
    try {
      next = applyPatch(this.view, msg.patch || []);
    } catch (err) {
      if (err instanceof PatchError) {
        this.resync();
        return;
      }
      throw err;
    }
    this.view = next;
    this.version = msg.version;
    this.onView(this.view, { snapshot: false, event: msg.event || null });
  }

  receiveError(msg) {
    const problem = { code: msg.code, message: msg.message };
    if (msg.code === "unavailable") {
      // The server can't reach its store: it closes this socket (4503); commands
      // stay pending and go again on the socket that is served next.
      this.problem = problem;
      this.setState("problem");
      return;
    }
    if (msg.chat_id !== undefined) {
      this.onChat(msg); // a chat message refused: the socket stays open
      return;
    }
    if (msg.command_id && this.pending.has(msg.command_id)) {
      this.settle(msg.command_id, (p) => p.reject(new CommandError(msg.code, msg.message)));
    } else {
      this.onProblem(problem);
    }
    // A stale page: make sure it holds the latest table.
    if (msg.code === "conflict") this.resync();
    if (msg.code === "unauthorized" || msg.code === "not_found") {
      this.stop();
      this.setState("closed");
      if (msg.code === "unauthorized" && this.token) this.onRefused(problem);
    }
  }

  settle(commandId, fn) {
    const p = this.pending.get(commandId);
    if (!p) return;
    this.pending.delete(commandId);
    fn(p);
  }

  /** Send a command on the served socket; without one it waits for the next. */
  transmit(p) {
    if (this.established && this.sendFrame(p.message)) p.sentOn = this.socket;
  }

  /** Send `action` for this seat; resolves with {version} or rejects with CommandError.
   * Unanswered, it is sent again (same command_id) on every socket served after the
   * one it went on, until the server answers it: applied once, never lost. */
  command(action) {
    const message = {
      type: "command",
      command_id: newCommandId(),
      expected_version: this.version,
      action,
    };
    return new Promise((resolve, reject) => {
      const p = { message, resolve, reject, sentOn: null };
      this.pending.set(message.command_id, p);
      this.transmit(p);
    });
  }
}
