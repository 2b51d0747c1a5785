// "Continue on another device": a seat lives in one browser's storage, so its page
// offers a link that carries the seat token in the address's fragment
// (`#/seat/{id}?token=…`), which a browser never sends to the server in a request
// line. Opening it stores the seat in that browser (after checking the token with
// the server, in a header) and goes to the table; the token leaves the address bar
// and the history at once. The QR code of the link is drawn by the server (segno,
// POST /api/qr: the link in the body, never in a URL). "New link" gives the seat a
// new token (POST /api/games/{id}/seat-token with the current one): the link given
// out stops working on every device, and this page plays on with the new token.

import { ApiError, fetchView, qrCode, seatToken } from "./api.js";
import { h, mount } from "./dom.js";
import { t } from "./i18n.js";
import { rememberSeat } from "./seats.js";
import { shareField } from "./share.js";

/** The address that seats another browser at `gameId` with `token`. */
export function seatLink(gameId, token) {
  const { origin, pathname } = window.location;
  return `${origin}${pathname}#/seat/${encodeURIComponent(gameId)}?${new URLSearchParams({ token })}`;
}

const qrImages = new Map(); // link -> object URL of its QR code, drawn once a page

async function qrImage(link) {
  if (!qrImages.has(link)) {
    const pending = qrCode(link).then((svg) => URL.createObjectURL(new Blob([svg], { type: "image/svg+xml" })));
    pending.catch(() => qrImages.delete(link));
    qrImages.set(link, pending);
  }
  return qrImages.get(link);
}

let replacedAt = null; // the game whose link this page just replaced: its menu says so

/**
 * The seat's "Other device" menu: the link, a warning, the QR code (fetched the
 * first time the menu opens), and "New link". Made once per table page and kept
 * across redraws of the head, so an open menu stays open while moves come in.
 * `onReplaced()` is called once the seat's new token (and `name`) is kept here.
 */
export function deviceMenu(gameId, token, { name = "", onReplaced = () => {} } = {}) {
  const link = seatLink(gameId, token);
  const figure = h("figure", { class: "device-qr" });
  const replaced = replacedAt === gameId;
  replacedAt = null;
  const note = h(
    "p",
    { class: "device-replace-note", id: "device-replace-note", role: "status" },
    replaced ? t("This is a new link: the one given out before no longer works.") : t("Gave this link to a device that is not yours? Make a new one: the link above then stops working everywhere."),
  );
  const renew = h(
    "button",
    {
      type: "button",
      class: "btn btn-small",
      id: "device-new-link",
      onclick: async () => {
        renew.disabled = true;
        try {
          const fresh = await seatToken(gameId, token);
          rememberSeat(gameId, { seat: fresh.seat, token: fresh.token, name });
          replacedAt = gameId;
          onReplaced();
        } catch (err) {
          note.textContent = t("No new link now: {problem}", { problem: err.message });
          renew.disabled = false;
        }
      },
    },
    t("New link"),
  );
  const menu = h(
    "details",
    { class: "share-menu device-menu", id: "device-menu" },
    h("summary", { class: "btn btn-small" }, t("Other device")),
    h(
      "div",
      { class: "share-panel device-panel" },
      h("h2", { class: "device-title" }, t("Continue on another device")),
      h(
        "p",
        { class: "device-warning", role: "note" },
        h("strong", {}, t("Anyone with this link or its QR code can play your seat.")),
        " ",
        t("Open it only on your own devices; don't post it where others can see it."),
      ),
      shareField(t("Your seat's link"), link, "device"),
      figure,
      h("div", { class: "device-replace" }, renew, note),
    ),
  );
  if (replaced) menu.open = true;
  menu.addEventListener("toggle", async () => {
    if (!menu.open || figure.dataset.state) return;
    figure.dataset.state = "loading";
    mount(figure, h("p", { class: "muted" }, t("Drawing the QR code…")));
    try {
      const src = await qrImage(link);
      mount(figure, h("img", { src, width: 180, height: 180, alt: t("QR code of your seat's link") }), h("figcaption", {}, t("Scan it with the other device's camera.")));
      figure.dataset.state = "shown";
    } catch (err) {
      mount(figure, h("p", { class: "muted" }, t("The QR code can't be drawn now ({problem}); the link above works the same.", { problem: err.message })));
      delete figure.dataset.state; // tried again when the menu opens next
    }
  });
  return menu;
}

function notice(main, title, words, gameId) {
  mount(
    main,
    h(
      "section",
      { class: "panel notice", id: "seat-link-notice" },
      h("h1", {}, title),
      h("p", {}, words),
      h("a", { class: "btn", href: `#/watch/${encodeURIComponent(gameId)}` }, t("Watch the game")),
      " ",
      h("a", { class: "btn", href: "#/" }, t("Back to the lobby")),
    ),
  );
}

/** `#/seat/{id}?token=…`: take the seat of the link in this browser, then its table. */
export async function showSeatLink(main, gameId) {
  const token = new URLSearchParams(window.location.hash.split("?")[1] || "").get("token");
  // The token leaves the address bar and the history before anything else.
  window.history.replaceState(null, "", `#/seat/${encodeURIComponent(gameId)}`);
  if (!token) {
    notice(main, t("This link is incomplete"), t("It carries no seat: ask for the link again."), gameId);
    return;
  }
  mount(main, h("p", { class: "loading" }, t("Taking your seat…")));
  let view;
  try {
    ({ view } = await fetchView(gameId, { token }));
  } catch (err) {
    const refused = err instanceof ApiError && (err.code === "unauthorized" || err.code === "not_found");
    notice(main, refused ? t("This link holds no seat") : t("The seat can't be checked now"), refused ? t("It is not a seat of this game (or the game is gone).") : err.message, gameId);
    return;
  }
  const me = view.players.find((p) => p.seat === view.you);
  rememberSeat(gameId, { seat: view.you, token, name: me ? me.name : t("Seat {n}", { n: view.you + 1 }) });
  if (main.isConnected) window.location.replace(`#/play/${encodeURIComponent(gameId)}`); // unless left meanwhile
}
