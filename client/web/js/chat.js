// The table chat (docs/chat.md): a panel beside the game log, a drawer opened by a
// button on a phone-sized screen. A seat talks in the players' room, a spectator in
// the spectators'; once the game is over a seat also reads the spectators' room, on a
// tab of its own. Every message is written as text (h() makes text nodes: never
// innerHTML); a preset in the reader's language (chat_presets.js). A room may be
// turned off for oneself (remembered in localStorage); an unread mark counts what
// came while the panel was closed, collapsed or on another tab.

import { h, mount } from "./dom.js";
import { formatNumber, t, tn } from "./i18n.js";
import { PRESETS, presetLabel } from "./chat_presets.js";

const MAX_TEXT = 200;
const OFF_KEY = "splendor.chat.off."; // + room: "1" while the room is off for this browser
const PHONE = "(max-width: 760px)";

function roomOff(room) {
  try {
    return window.localStorage.getItem(OFF_KEY + room) === "1";
  } catch {
    return false; // no storage (a private mode): every room starts on
  }
}

function rememberOff(room, off) {
  try {
    if (off) window.localStorage.setItem(OFF_KEY + room, "1");
    else window.localStorage.removeItem(OFF_KEY + room);
  } catch {
    // not remembered: the switch still holds for this page
  }
}

function newChatId() {
  const bytes = window.crypto.getRandomValues(new Uint8Array(8));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

const ROOM_WORDS = {
  players: () => t("Players"),
  spectators: () => t("Spectators"),
};

/** Who wrote a message, in the reader's words: a guest's number, else the name. */
export function speaker(message) {
  if (typeof message.guest === "number") return t("Guest {n}", { n: message.guest });
  return String(message.name || "");
}

/** What a message says, in the reader's language: a preset's label, else its text. */
export function said(message) {
  if (message.preset !== undefined) return presetLabel(message.preset) || String(message.preset);
  return String(message.text || "");
}

/** A refusal of a chat message in the page's words (its reason key), else the
 * server's own sentence. */
export function chatRefusal(error) {
  const reason = error.reason || {};
  const args = reason.args || {};
  switch (reason.key) {
    case "chat.text_length":
      return t("A message is 1 to {most} characters.", { most: args.most ?? MAX_TEXT });
    case "chat.text_hidden":
      return t("A message can't hold control, direction or invisible characters ({char}).", { char: String(args.char || "") });
    case "chat.repeated":
      return t("You just sent that message.");
    case "rate_limited.chat":
      return tn("Too many messages: wait {n} second.", "Too many messages: wait {n} seconds.", Math.max(1, Math.ceil(Number(args.wait) || 1)));
    case "chat.off":
      return t("Chat is turned off on this server.");
    case "chat.presets_only":
      return t("This server allows only the ready-made phrases.");
    default:
      return String(error.message || t("The message was refused."));
  }
}

export class ChatPanel {
  /** `seated`: the socket is a seat's (it writes to the players' room);
   * `send(frame)`: sends a frame on the game's socket, false when none is open. */
  constructor({ seated, send }) {
    this.seated = seated;
    this.send = send;
    this.own = seated ? "players" : "spectators";
    this.rooms = new Map(); // room -> {messages: [], ids: Set}
    this.readable = [this.own];
    this.active = this.own;
    this.mode = null; // "on" or "presets" once told; null: the server has chat off
    this.unread = 0;
    this.lastText = null;
    this.phone = window.matchMedia(PHONE);
    this.open = !this.phone.matches;
    this.error = h("p", { class: "chat-error", role: "status" });
    this.list = h("ol", { class: "chat-list", tabindex: "0", "aria-live": "polite", "aria-relevant": "additions", "aria-label": t("Chat messages") });
    this.input = h("input", { class: "chat-input", type: "text", maxlength: String(MAX_TEXT), autocomplete: "off", "aria-label": t("Message"), placeholder: t("Say something…") });
    this.form = h(
      "form",
      { class: "chat-form", onsubmit: (e) => (e.preventDefault(), this.sendText()) },
      this.input,
      h("button", { type: "submit", class: "btn btn-small" }, t("Send")),
    );
    this.presets = h(
      "div",
      { class: "chat-presets", role: "group", "aria-label": t("Ready-made phrases") },
      PRESETS.map((key) => h("button", { type: "button", class: "btn btn-small chat-preset", dataset: { preset: key }, onclick: () => this.sendPreset(key) }, presetLabel(key))),
    );
    this.tabs = h("div", { class: "chat-tabs", role: "tablist", "aria-label": t("Chat rooms") });
    this.switch = h("input", { type: "checkbox", class: "chat-switch", onchange: () => this.setRoomOff(!this.switch.checked) });
    this.headButton = h("button", { type: "button", class: "chat-head-button", "aria-expanded": String(this.open), onclick: () => this.setOpen(!this.open) });
    this.body = h("div", { class: "chat-body", id: "chat-body" });
    this.el = h("section", { class: "chat", "aria-label": t("Chat"), hidden: true }, h("div", { class: "chat-head" }, this.headButton, this.tabs, h("label", { class: "chat-switch-label" }, this.switch, t("On"))), this.body);
    this.toggle = h("button", { type: "button", class: "btn chat-toggle", hidden: true, "aria-controls": "chat-body", onclick: () => this.setOpen(!this.open) });
    // Crossing into a phone's width closes the drawer; back to a wide screen opens the panel.
    this.onPhone = () => {
      this.open = !this.phone.matches;
      this.draw();
    };
    this.phone.addEventListener("change", this.onPhone);
    this.draw();
  }

  destroy() {
    this.phone.removeEventListener("change", this.onPhone);
    this.toggle.remove();
  }

  room(name) {
    let room = this.rooms.get(name);
    if (!room) {
      room = { messages: [], ids: new Set() };
      this.rooms.set(name, room);
    }
    return room;
  }

  /** A `chat_history` or `chat` message of the socket. */
  take(message) {
    if (message.type === "chat_history") {
      this.mode = message.mode || "on";
      const room = this.room(message.room);
      room.messages = [...message.messages];
      room.ids = new Set(room.messages.map((m) => m.id));
      if (!this.readable.includes(message.room)) this.readable.push(message.room);
      this.draw();
      return;
    }
    if (message.type !== "chat") return;
    const room = this.room(message.room);
    if (room.ids.has(message.id)) return;
    room.ids.add(message.id);
    room.messages.push(message);
    const seen = this.open && this.active === message.room;
    if (!seen && !roomOff(message.room)) this.unread += 1;
    if (this.active === message.room) this.appendLine(message);
    this.drawMarks();
  }

  setOpen(open) {
    this.open = open;
    if (open && this.active) this.unread = 0;
    this.draw();
    if (open && this.phone.matches) this.input.focus();
  }

  setRoomOff(off) {
    rememberOff(this.active, off);
    this.draw();
  }

  pick(room) {
    this.active = room;
    this.unread = 0;
    this.draw();
  }

  sendText() {
    // The protocol refuses zero-width characters; Persian writing puts a non-joiner
    // inside words (and emoji sequences a joiner), which read well enough without:
    // they are left out rather than have the whole line refused.
    const text = this.input.value.replace(/[\u200c\u200d]/g, "");
    if (!text.trim()) return;
    const chatId = this.transmit({ text });
    if (chatId) {
      this.input.value = "";
      this.lastText = { chatId, text }; // given back to the box if it is refused
    }
  }

  sendPreset(key) {
    this.transmit({ preset: key });
  }

  /** Send a chat message; its chat_id, or null when no socket is open. */
  transmit(body) {
    const chatId = newChatId();
    const sent = this.send({ type: "chat", chat_id: chatId, ...body });
    mount(this.error, sent ? null : t("Not connected: the message was not sent."));
    return sent ? chatId : null;
  }

  /** A refusal of one of this page's chat messages (an `error` with a chat_id): said
   * in words, and a refused text is put back in the box if it is empty. */
  refused(error) {
    mount(this.error, chatRefusal(error));
    const last = this.lastText;
    if (last && last.chatId === error.chat_id && !this.input.value) this.input.value = last.text;
  }

  line(message) {
    return h(
      "li",
      { class: ["chat-line", message.preset !== undefined && "chat-preset-line"], dataset: { id: message.id, seat: message.seat === null ? "" : String(message.seat) } },
      h("span", { class: "chat-name" }, speaker(message)),
      " ",
      h("span", { class: "chat-text", dir: "auto" }, said(message)),
    );
  }

  appendLine(message) {
    if (roomOff(message.room)) return;
    const l = this.list;
    const follow = l.scrollHeight - l.scrollTop - l.clientHeight < 60;
    l.append(this.line(message));
    if (follow) l.scrollTop = l.scrollHeight;
  }

  drawMarks() {
    const unread = this.unread;
    const mark = unread ? h("span", { class: "chat-unread", "aria-label": tn("{n} unread message", "{n} unread messages", unread) }, formatNumber(unread)) : null;
    mount(this.headButton, t("Chat"), mark);
    mount(this.toggle, t("Chat"), mark ? mark.cloneNode(true) : null);
    this.headButton.setAttribute("aria-expanded", String(this.open));
    this.toggle.setAttribute("aria-expanded", String(this.open));
  }

  draw() {
    const on = this.mode !== null;
    this.el.hidden = !on;
    this.toggle.hidden = !on || !this.phone.matches;
    this.el.classList.toggle("open", this.open);
    this.el.classList.toggle("phone", this.phone.matches);
    if (!on) return;
    if (this.open && this.active) this.unread = 0;
    mount(
      this.tabs,
      this.readable.length > 1
        ? this.readable.map((room) => h("button", { type: "button", role: "tab", class: "chat-tab", dataset: { room }, "aria-selected": String(room === this.active), onclick: () => this.pick(room) }, ROOM_WORDS[room] ? ROOM_WORDS[room]() : room))
        : null,
    );
    const off = roomOff(this.active);
    this.switch.checked = !off;
    this.switch.setAttribute("aria-label", t("Show this room"));
    const writable = this.active === this.own;
    const messages = off ? [] : this.room(this.active).messages;
    this.list.replaceChildren(...messages.map((m) => this.line(m)));
    this.list.scrollTop = this.list.scrollHeight;
    mount(
      this.body,
      off ? h("p", { class: "chat-note" }, t("You turned this room off.")) : this.list,
      writable && !off ? this.presets : null,
      writable && !off && this.mode === "on" ? this.form : null,
      !writable ? h("p", { class: "chat-note" }, t("Only spectators write here.")) : null,
      this.error,
    );
    this.drawMarks();
  }
}
