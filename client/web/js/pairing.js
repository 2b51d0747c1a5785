// Quick pairing in the lobby: "Play 3+2", "Play 5+3", "Play 10+5" for Splendor
// (2, 3 or 4 players) or Duel, each button with how many wait in its pool
// (GET /api/pairing/pools, asked every few seconds) and how many people play now.
// Pressing one opens /ws/pairing (docs/pairing.md): the panel shows how long we have
// waited and a Cancel button (Escape cancels too); when the server pairs us, the seat
// token it sends is kept like any seat's and the page goes to the table. A dropped
// connection comes back with its ticket (same place in the pool) after a short pause;
// the server keeps the place for `grace_ms`. An account waits rated unless it unticks
// "Rated" (the casual pools are shared with guests).
//
// After `offer_after_ms` (the server's: 20 s) the panel offers a bot game in a new tab
// while this tab keeps the place (the pairing goes on here, and this tab goes to the
// paired game when it comes); another clock of the game, where players wait; and in a
// pool of three or four, bots in the seats nobody takes (docs/pairing.md).

import { accountName, onAccountChange } from "./account.js";
import { createGame, takeSeat } from "./api.js";
import { h, mount } from "./dom.js";
import { formatMinutes, formatNumber, lang, t, tn } from "./i18n.js";
import { playerName, rememberName, rememberSeat } from "./seats.js";

const CLOCKS = ["3+2", "5+3", "10+5"];
// [value, variant, players, label]
const GAMES = [
  ["classic", "classic", 2, t("Splendor")],
  ["duel", "duel", 2, t("Duel")],
  ["classic-3", "classic", 3, tn("{game}, {n} player", "{game}, {n} players", 3, { game: t("Splendor"), n: formatNumber(3) })],
  ["classic-4", "classic", 4, tn("{game}, {n} player", "{game}, {n} players", 4, { game: t("Splendor"), n: formatNumber(4) })],
];
const RETRY_MS = [250, 1000, 2000, 4000];
const POOLS_MS = 5000;
const OFFER_BOT = "greedy";

/** "0:07", "1:23": minutes and seconds waited. */
export function waitClock(ms) {
  return formatMinutes(Math.max(0, Math.floor(ms / 1000)));
}

/** "5+3" in the language's digits. */
function clockLabel(clock) {
  return clock.split("+").map((n) => formatNumber(Number(n))).join("+");
}

/** What the pool is: rated (accounts, by rating) or casual (guests and accounts). */
export function kindWords(waiting) {
  if (waiting.rated) return t("Rated: an account near your rating ({rating}).", { rating: Math.round(waiting.rating) });
  return t("Casual: guests and accounts, not rated. Log in to play rated.");
}

/** How many wait in one pool, as last counted (0 when unknown). */
export function waitingIn(pools, { variant, players, clock, rated }) {
  const pool = pools && (pools.pools || []).find((p) => p.variant === variant && p.players === players && p.clock === clock && p.rated === rated);
  return pool ? pool.waiting : 0;
}

/** The other clock to offer: where most wait (the next one round when nobody does). */
export function otherClock(pools, pool) {
  const others = [1, 2].map((step) => CLOCKS[(CLOCKS.indexOf(pool.clock) + step) % CLOCKS.length]);
  let best = others[0];
  for (const clock of others) {
    if (waitingIn(pools, { ...pool, clock }) > waitingIn(pools, { ...pool, clock: best })) best = clock;
  }
  return best;
}

/** The pools' counts (GET /api/pairing/pools), or null. */
async function fetchPools() {
  try {
    const response = await fetch("/api/pairing/pools");
    return response.ok ? await response.json() : null;
  } catch {
    return null;
  }
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

function pairingUrl({ variant, players, clock, rated }, name, ticket) {
  const scheme = window.location.protocol === "https:" ? "wss" : "ws";
  const query = new URLSearchParams({ variant, clock, name, lang, players: String(players) });
  if (!rated) query.set("rated", "0");
  if (ticket) query.set("ticket", ticket);
  return `${scheme}://${window.location.host}/ws/pairing?${query}`;
}

/** The panel, and `stop()` (leaving the lobby cancels a wait). */
export function pairingPanel() {
  let game = "classic";
  let wantsRated = true; // an account's choice; a guest is always casual
  let pools = null; // the last GET /api/pairing/pools
  let search = null; // {pool, name, socket, ticket, since, offerAfter, timer, done, retries, filling, switchTo}
  const error = h("p", { class: "form-error", role: "alert", id: "pairing-error" });
  const games = h("div", { class: "segmented pairing-games", role: "radiogroup", "aria-label": t("Game to pair for") });
  const ratedBox = h("div", { class: "field rated-field pairing-rated", hidden: true });
  const buttons = h("div", { class: "pairing-buttons" });
  const playing = h("p", { class: "pairing-playing hint", id: "pairing-playing" });
  const status = h("div", { class: "pairing-status", id: "pairing-status", hidden: true });
  const offer = h("div", { class: "pairing-offer", id: "pairing-offer", hidden: true });

  const chosen = () => GAMES.find(([value]) => value === game);
  const rated = () => !!accountName() && wantsRated;
  /** The pool a clock's button waits in, as things are chosen now. */
  const poolOf = (clock) => {
    const [, variant, players] = chosen();
    return { variant, players, clock, rated: rated() };
  };

  const drawGames = () =>
    mount(
      games,
      GAMES.map(([value, , , label]) =>
        h(
          "label",
          { class: ["segment", value === game && "checked"] },
          h("input", {
            type: "radio",
            name: "pairing-game",
            value,
            checked: value === game,
            disabled: search !== null,
            onchange: () => {
              game = value;
              drawGames();
              drawButtons();
            },
          }),
          label,
        ),
      ),
    );
  const drawRated = () => {
    ratedBox.hidden = !accountName();
    mount(
      ratedBox,
      h("input", {
        type: "checkbox",
        id: "pairing-rated",
        checked: wantsRated,
        disabled: search !== null,
        onchange: (event) => {
          wantsRated = event.target.checked;
          drawButtons();
        },
      }),
      h("label", { for: "pairing-rated" }, t("Rated")),
    );
  };
  const drawButtons = () => {
    mount(
      buttons,
      CLOCKS.map((clock) => {
        const waiting = waitingIn(pools, search ? { ...search.pool, clock } : poolOf(clock));
        return h(
          "button",
          {
            type: "button",
            // The pool waited in stands out while waiting; 5+3 (lichess's default) before.
            class: ["btn", clock === (search ? search.pool.clock : "5+3") && "btn-primary"],
            "aria-pressed": search && search.pool.clock === clock ? "true" : null,
            id: `play-${clock.replace("+", "-")}`,
            dataset: { clock },
            disabled: search !== null,
            onclick: () => start(clock),
          },
          h("span", { class: "pairing-clock" }, t("Play {clock}", { clock: clockLabel(clock) })),
          h(
            "span",
            { class: "pool-count", id: `pool-${clock.replace("+", "-")}` },
            waiting ? tn("{count} waiting", "{count} waiting", waiting, { count: formatNumber(waiting) }) : "",
          ),
        );
      }),
    );
    const people = pools ? pools.playing || 0 : 0;
    playing.textContent = people ? tn("{count} playing now", "{count} playing now", people, { count: formatNumber(people) }) : "";
  };

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

  const drawOffer = () => {
    const s = search;
    if (!s || s.offerAfter === null || Date.now() - s.since < s.offerAfter) {
      offer.hidden = true;
      mount(offer);
      return;
    }
    const other = otherClock(pools, s.pool);
    const othersWaiting = waitingIn(pools, { ...s.pool, clock: other });
    const choices = [
      h("button", { type: "button", class: "btn", id: "offer-bot", onclick: () => playBotMeanwhile() }, t("Play a bot while you wait")),
      h(
        "button",
        { type: "button", class: "btn", id: "offer-clock", dataset: { clock: other }, onclick: () => switchClock(other) },
        othersWaiting
          ? tn("Try {clock} ({count} waiting)", "Try {clock} ({count} waiting)", othersWaiting, { clock: clockLabel(other), count: formatNumber(othersWaiting) })
          : t("Try {clock} instead", { clock: clockLabel(other) }),
      ),
    ];
    if (s.pool.players > 2) {
      choices.push(
        s.filling
          ? h("p", { class: "hint", id: "offer-filling" }, t("Bots will take the empty seats as soon as another player here accepts them too."))
          : h("button", { type: "button", class: "btn", id: "offer-fill", onclick: () => acceptBots() }, t("Start with bots in the empty seats")),
      );
    }
    mount(offer, h("p", { class: "pairing-offer-words" }, t("Nobody yet. Meanwhile:")), h("div", { class: "pairing-offer-choices" }, choices));
    offer.hidden = false;
  };

  const tick = () => {
    const timer = status.querySelector("#pairing-timer");
    if (search && timer) timer.textContent = waitClock(Date.now() - search.since);
    if (search && offer.hidden) drawOffer();
  };

  const refreshPools = async () => {
    if (document.hidden) return;
    const counted = await fetchPools();
    if (!counted) return;
    pools = counted;
    drawButtons();
    if (search && !offer.hidden && !offer.contains(document.activeElement)) drawOffer();
  };

  const finish = (message) => {
    if (!search) return;
    const switchTo = search.switchTo;
    window.clearInterval(search.timer);
    search.done = true;
    search = null;
    drawGames();
    drawRated();
    drawButtons();
    drawStatus();
    drawOffer();
    error.textContent = message || "";
    if (switchTo && !message) start(switchTo);
  };

  const connect = () => {
    const s = search;
    const socket = new WebSocket(pairingUrl(s.pool, s.name, s.ticket));
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
        s.offerAfter = Number.isFinite(message.offer_after_ms) ? message.offer_after_ms : null;
        s.retries = 0;
        if (s.filling) socket.send(JSON.stringify({ type: "fill" })); // kept across a reconnection
        tick();
      } else if (message.type === "filling") {
        s.filling = true;
        drawOffer();
      } else if (message.type === "paired") {
        rememberSeat(message.game, { seat: message.seat, token: message.token, name: s.name });
        s.switchTo = null;
        finish();
        window.location.hash = `#/play/${encodeURIComponent(message.game)}`;
      } else if (message.type === "cancelled") {
        finish();
      } else if (message.type === "error") {
        if (socket.readyState === WebSocket.OPEN && message.code === "bad_request") return; // a refused fill: still waiting
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

  let stopped = false; // the page was left: no wait starts any more
  const start = async (clock) => {
    if (stopped) return;
    const input = document.getElementById("player-name");
    let name = (input ? input.value : playerName()).trim();
    error.textContent = "";
    if (!name || accountName()) {
      // Logged in, an account plays under its username: no name to type.
      name = (await loggedIn()) || name;
      if (stopped) return; // left while asking who is logged in
      if (!name) {
        error.textContent = t("Write your name first (or log in): your opponent sees it.");
        if (input) input.focus();
        return;
      }
    } else {
      rememberName(name);
    }
    if (search) return;
    const pool = poolOf(clock);
    search = { pool, name, ticket: null, since: Date.now(), offerAfter: null, retries: 0, done: false, socket: null, filling: false, switchTo: null };
    search.timer = window.setInterval(tick, 1000);
    const label = chosen()[3];
    drawGames();
    drawRated();
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

  /** Leave this pool for the same game's pool of another clock. */
  const switchClock = (clock) => {
    if (!search) return;
    search.switchTo = clock;
    cancel_();
  };

  /** Accept bots in the seats a table of three or four has left. */
  const acceptBots = () => {
    const s = search;
    if (s && s.socket && s.socket.readyState === WebSocket.OPEN) s.socket.send(JSON.stringify({ type: "fill" }));
  };

  /** A casual untimed game against a bot, in a new tab: this tab keeps its place. */
  const playBotMeanwhile = async () => {
    const s = search;
    if (!s) return;
    // Opened at the click (a tab opened later is a blocked pop-up), then sent to its game.
    const tab = window.open("", "_blank");
    try {
      const made = await createGame({ variant: s.pool.variant, players: 2 });
      const mine = await takeSeat(made.id, accountName() ? {} : { name: s.name });
      rememberSeat(made.id, { seat: mine.seat, token: mine.token, name: s.name });
      await takeSeat(made.id, { bot: OFFER_BOT });
      const address = `${window.location.origin}${window.location.pathname}#/play/${encodeURIComponent(made.id)}`;
      if (tab) tab.location.href = address;
      else window.open(address, "_blank");
    } catch (err) {
      if (tab) tab.close();
      error.textContent = err && err.message ? err.message : String(err);
    }
  };

  status.addEventListener("keydown", (event) => {
    if (event.key === "Escape") cancel_();
  });
  drawGames();
  drawRated();
  drawButtons();
  const forgetAccount = onAccountChange(() => {
    drawRated();
    drawButtons();
  });
  refreshPools();
  const poolsTimer = window.setInterval(refreshPools, POOLS_MS);

  const panel = h(
    "section",
    { class: "panel pairing", "aria-labelledby": "pairing-title", id: "pairing-panel" },
    h("h2", { id: "pairing-title", class: "panel-title" }, t("Quick pairing")),
    h("p", { class: "hint" }, t("Play a stranger of your strength in seconds: pick a game and a time control.")),
    h("div", { class: "field" }, games),
    ratedBox,
    buttons,
    playing,
    status,
    offer,
    error,
  );
  const stop = () => {
    stopped = true;
    window.clearInterval(poolsTimer);
    forgetAccount();
    const socket = search && search.socket;
    if (socket && socket.readyState === WebSocket.OPEN) {
      socket.send(JSON.stringify({ type: "cancel" }));
    } else if (socket && socket.readyState === WebSocket.CONNECTING) {
      // Not open yet: the server puts the player in the pool once it is, so the wait
      // is cancelled then, and the socket closed once the server has answered.
      socket.onopen = () => socket.send(JSON.stringify({ type: "cancel" }));
      socket.onmessage = (event) => {
        let type = null;
        try {
          type = JSON.parse(event.data).type;
        } catch {
          // not a message of ours: the answer is still to come
        }
        if (type !== null && type !== "waiting") socket.close();
      };
    }
    if (search) {
      search.done = true;
      window.clearInterval(search.timer);
      search = null;
    }
  };
  return { panel, stop };
}
