// The live half of PROTOCOL.md: one websocket per table that keeps a view up to
// date by applying diffs, catches up after a drop by reconnecting with
// `since=<last version>`, asks for a snapshot (`resync`) on a version gap, and
// sends commands (over HTTP when the socket is down).

import { ApiError, postCommand } from "./api.js";
import { applyPatch, PatchError } from "./patch.js";

const PING_EVERY_MS = 20000;
const SILENT_LIMIT_MS = 50000; // no frame at all for this long: the socket is dead
const COMMAND_TIMEOUT_MS = 12000;
const BACKOFF_MS = [250, 500, 1000, 2000, 3000];

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

/**
 * Callbacks: onView(view, {event, snapshot}), onState("connecting"|"live"|"reconnecting"|"closed"),
 * onProblem({code, message}) for errors not tied to a command.
 */
export class LiveGame {
  constructor({ gameId, token = null, onView, onState = () => {}, onProblem = () => {} }) {
    this.gameId = gameId;
    this.token = token;
    this.onView = onView;
    this.onState = onState;
    this.onProblem = onProblem;
    this.view = null;
    this.version = 0;
    this.socket = null;
    this.state = "connecting";
    this.stopped = false;
    this.attempt = 0;
    this.awaitingSnapshot = false;
    this.pending = new Map(); // command_id -> {message, resolve, reject, timer, sent}
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
    for (const p of this.pending.values()) window.clearTimeout(p.timer);
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
    const params = new URLSearchParams();
    if (this.token) params.set("token", this.token);
    if (this.view) params.set("since", String(this.version));
    const query = params.toString();
    return `${scheme}://${window.location.host}/ws/games/${encodeURIComponent(this.gameId)}${query ? `?${query}` : ""}`;
  }

  connect() {
    if (this.stopped) return;
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
      this.attempt = 0;
      this.lastFrameAt = Date.now();
      this.setState("live");
      // Commands in flight when the last socket died: the same command_id is
      // applied once, so sending again is safe and gets the ack.
      for (const p of this.pending.values()) this.transmit(p);
    };
    socket.onmessage = (e) => this.receive(e.data);
    socket.onclose = () => {
      if (this.socket !== socket) return;
      this.socket = null;
      if (!this.stopped) {
        this.setState("reconnecting");
        this.reconnectSoon();
      }
    };
    socket.onerror = () => {}; // onclose follows and handles it
  }

  reconnectSoon(delay) {
    if (this.stopped || this.reconnectTimer) return;
    const wait = delay ?? BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)] * (0.8 + Math.random() * 0.4);
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
    }
  }

  settle(commandId, fn) {
    const p = this.pending.get(commandId);
    if (!p) return;
    this.pending.delete(commandId);
    window.clearTimeout(p.timer);
    fn(p);
  }

  transmit(p) {
    if (this.sendFrame(p.message)) return;
    // No socket: the same command over HTTP.
    postCommand(this.gameId, { command_id: p.message.command_id, expected_version: p.message.expected_version, action: p.message.action }, this.token).then(
      (answer) => this.settle(p.message.command_id, (q) => q.resolve(answer)),
      (err) => {
        if (err instanceof ApiError && err.code === "network") return; // resent when the socket is back
        this.settle(p.message.command_id, (q) => q.reject(new CommandError(err.code, err.message)));
      },
    );
  }

  /** Send `action` for this seat; resolves with {version} or rejects with CommandError. */
  command(action) {
    const message = {
      type: "command",
      command_id: newCommandId(),
      expected_version: this.version,
      action,
    };
    return new Promise((resolve, reject) => {
      const p = { message, resolve, reject };
      p.timer = window.setTimeout(() => {
        this.settle(message.command_id, (q) =>
          q.reject(new CommandError("timeout", "The server has not answered yet; your move may still arrive.")),
        );
      }, COMMAND_TIMEOUT_MS);
      this.pending.set(message.command_id, p);
      this.transmit(p);
    });
  }
}
