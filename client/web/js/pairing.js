// Quick pairing in the lobby: "Play 3+2", "Play 5+3", "Play 10+5" for Splendor
// (2 players) or Duel. Pressing one opens /ws/pairing (docs/pairing.md): the panel
// shows how long we have waited and a Cancel button (Escape cancels too); when the
// server pairs us, the seat token it sends is kept like any seat's and the page goes
// to the table. A dropped connection comes back with its ticket (same place in the
// pool) after a short pause; the server keeps the place for `grace_ms`.

import { h, mount } from "./dom.js";
import { formatMinutes, formatNumber, lang, t } from "./i18n.js";
import { playerName, rememberName, rememberSeat } from "./seats.js";

const CLOCKS = ["3+2", "5+3", "10+5"];
const GAMES = [
  ["classic", t("Splendor")],
  ["duel", t("Duel")],
];
const RETRY_MS = [250, 1000, 2000, 4000];

/** "0:07", "1:23": minutes and seconds waited. */
export function waitClock(ms) {
  return formatMinutes(Math.max(0, Math.floor(ms / 1000)));
}

/** "5+3" in the language's digits. */
function clockLabel(clock) {
  return clock.split("+").map((n) => formatNumber(Number(n))).join("+");
}

/** What the pool is: rated (accounts, by rating) or casual (guests with guests). */
export function kindWords(waiting) {
  if (waiting.rated) return t("Rated: an account near your rating ({rating}).", { rating: Math.round(waiting.rating) });
  return t("Casual: guests play guests. Log in to play rated.");
}

/** The logged-in account's username, or "" (a guest). */
async function loggedIn() {
  try {
    const response = await fetch("/api/me");
    return response.ok ? (await response.json()).username || "" : "";
  } catch {
    return "";
  }
}

function pairingUrl(variant, clock, name, ticket) {
  const scheme = window.location.protocol === "https:" ? "wss" : "ws";
  const query = new URLSearchParams({ variant, clock, name, lang });
  if (ticket) query.set("ticket", ticket);
  return `${scheme}://${window.location.host}/ws/pairing?${query}`;
}

/** The panel, and `stop()` (leaving the lobby cancels a wait). */
export function pairingPanel() {
  let variant = "classic";
  let search = null; // {clock, socket, ticket, since, timer, done, retries}
  const error = h("p", { class: "form-error", role: "alert", id: "pairing-error" });
  const games = h("div", { class: "segmented", role: "radiogroup", "aria-label": t("Game to pair for") });
  const buttons = h("div", { class: "pairing-buttons" });
  const status = h("div", { class: "pairing-status", id: "pairing-status", hidden: true });

  const drawGames = () =>
    mount(
      games,
      GAMES.map(([value, label]) =>
        h(
          "label",
          { class: ["segment", value === variant && "checked"] },
          h("input", {
            type: "radio",
            name: "pairing-game",
            value,
            checked: value === variant,
            disabled: search !== null,
            onchange: () => {
              variant = value;
              drawGames();
            },
          }),
          label,
        ),
      ),
    );
  const drawButtons = () =>
    mount(
      buttons,
      CLOCKS.map((clock) =>
        h(
          "button",
          {
            type: "button",
            // The pool waited in stands out while waiting; 5+3 (lichess's default) before.
            class: ["btn", clock === (search ? search.clock : "5+3") && "btn-primary"],
            "aria-pressed": search && search.clock === clock ? "true" : null,
            id: `play-${clock.replace("+", "-")}`,
            dataset: { clock },
            disabled: search !== null,
            onclick: () => start(clock),
          },
          t("Play {clock}", { clock: clockLabel(clock) }),
        ),
      ),
    );

  const drawStatus = (words) => {
    if (!search) {
      status.hidden = true;
      mount(status);
      return;
    }
    const cancel = h("button", { type: "button", class: "btn", id: "pairing-cancel", onclick: () => cancel_() }, t("Cancel"));
    mount(
      status,
      h("p", { class: "pairing-words", role: "status" }, words),
      h("p", { class: "pairing-kind hint", id: "pairing-kind" }),
      h("p", { class: "pairing-wait" }, t("Waited"), " ", h("span", { id: "pairing-timer", class: "pairing-timer" }, waitClock(Date.now() - search.since))),
      cancel,
    );
    status.hidden = false;
    return cancel;
  };

  const tick = () => {
    const timer = status.querySelector("#pairing-timer");
    if (search && timer) timer.textContent = waitClock(Date.now() - search.since);
  };

  const finish = (message) => {
    if (!search) return;
    window.clearInterval(search.timer);
    search.done = true;
    search = null;
    drawGames();
    drawButtons();
    drawStatus();
    error.textContent = message || "";
  };

  const connect = () => {
    const s = search;
    const socket = new WebSocket(pairingUrl(variant, s.clock, s.name, s.ticket));
    s.socket = socket;
    socket.onmessage = (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      if (message.type === "waiting") {
        const kind = status.querySelector("#pairing-kind");
        if (kind) kind.textContent = kindWords(message);
        s.ticket = message.ticket;
        s.since = Date.parse(message.since) || s.since;
        s.retries = 0;
        tick();
      } else if (message.type === "paired") {
        rememberSeat(message.game, { seat: message.seat, token: message.token, name: s.name });
        finish();
        window.location.hash = `#/play/${encodeURIComponent(message.game)}`;
      } else if (message.type === "cancelled") {
        finish();
      } else if (message.type === "error") {
        finish(message.message);
      }
    };
    socket.onclose = (event) => {
      if (s.done || search !== s) return;
      // Dropped (or the server restarting: 1012): back with our ticket, same place.
      const pause = event.code === 1012 ? Math.random() * 250 : RETRY_MS[Math.min(s.retries, RETRY_MS.length - 1)];
      s.retries += 1;
      if (s.retries > 8) {
        finish(t("Lost the connection to the server: try again."));
        return;
      }
      window.setTimeout(() => {
        if (search === s) connect();
      }, pause);
    };
  };

  const start = async (clock) => {
    const input = document.getElementById("player-name");
    let name = (input ? input.value : playerName()).trim();
    error.textContent = "";
    if (!name) {
      // Logged in, an account plays under its username: no name to type.
      name = await loggedIn();
      if (!name) {
        error.textContent = t("Write your name first (or log in): your opponent sees it.");
        if (input) input.focus();
        return;
      }
    } else {
      rememberName(name);
    }
    if (search) return;
    search = { clock, name, ticket: null, since: Date.now(), retries: 0, done: false, socket: null };
    search.timer = window.setInterval(tick, 1000);
    const label = GAMES.find(([v]) => v === variant)[1];
    drawGames();
    drawButtons();
    const cancel = drawStatus(t("Looking for an opponent for {game} {clock}…", { game: label, clock: clockLabel(clock) }));
    cancel.focus();
    connect();
  };

  const cancel_ = () => {
    const s = search;
    if (!s) return;
    const socket = s.socket;
    if (socket && socket.readyState === WebSocket.OPEN) {
      // The server answers "cancelled", or "paired" if it paired us first.
      socket.send(JSON.stringify({ type: "cancel" }));
    } else {
      if (socket) socket.close();
      finish();
    }
  };

  status.addEventListener("keydown", (event) => {
    if (event.key === "Escape") cancel_();
  });
  drawGames();
  drawButtons();

  const panel = h(
    "section",
    { class: "panel pairing", "aria-labelledby": "pairing-title", id: "pairing-panel" },
    h("h2", { id: "pairing-title", class: "panel-title" }, t("Quick pairing")),
    h("p", { class: "hint" }, t("Play a stranger of your strength in seconds: pick a game and a time control.")),
    h("div", { class: "field" }, games),
    buttons,
    status,
    error,
  );
  const stop = () => {
    if (search && search.socket && search.socket.readyState === WebSocket.OPEN) {
      search.socket.send(JSON.stringify({ type: "cancel" }));
    }
    if (search) {
      search.done = true;
      window.clearInterval(search.timer);
      search = null;
    }
  };
  return { panel, stop };
}
