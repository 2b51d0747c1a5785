// The table of a classic game drawn from a view: nobles, the three rows of cards
// (level 3 on top) with their decks, the bank, and every player's area.
//
// The same drawing serves playing, watching and replaying; `ui` makes it
// interactive. Every part carries data-attributes that restate the view it shows
// (the browser tests compare them to GET /view), so the DOM is checkable.

import { cardBack, cardFace, cardLabel, nobleTile } from "./cards.js";
import { h, svg } from "./dom.js";
import { GEMS, TOKENS, colourWord, gemCount, gemIcon, gemLabel, tokenChip } from "./gems.js";
import { formatNumber, t, tn, tp } from "./i18n.js";
import { explain } from "./reasons.js";
import { botTag, seatLabel } from "./words.js";

/**
 * ui (optional): {
 *   selection: {tokens: {colour: n}, card: id|null, deck: level|null},
 *   onToken(colour), onCard(id), onDeck(level), onReserved(id),
 *   tokenEnabled(colour) -> bool, active: bool (the viewer may act now)
 * }
 */
export function renderTable(view, catalog, ui = null) {
  return h(
    "section",
    {
      class: ["table", ui && "interactive"],
      id: "table",
      "aria-label": t("The table"),
      dataset: tableDataset(view),
    },
    view.status === "open"
      ? waitingBoard(t("The cards are dealt and the tokens set out when the last seat is taken."))
      : h(
          "div",
          { class: "board-area" },
          renderNobles(view, catalog),
          h("div", { class: "board-and-bank" }, renderRows(view, catalog, ui), renderBank(view, ui)),
        ),
  );
}

/** The data-attributes of #table in both games: the view's version, status, turn and reader. */
export function tableDataset(view) {
  const turn = view.turn || {};
  return {
    version: String(view.version),
    status: view.status,
    turnSeat: turn.seat === undefined || turn.seat === null ? "" : String(turn.seat),
    phase: turn.phase || "",
    you: view.you === null || view.you === undefined ? "" : String(view.you),
  };
}

function renderNobles(view, catalog) {
  const nobles = view.nobles || [];
  return h(
    "div",
    { class: "nobles", role: "list", "aria-label": t("Nobles on the table: {n}", { n: nobles.length }) },
    nobles.map((id) => h("div", { role: "listitem", class: "noble-wrap" }, nobleTile(id, catalog.nobles[id]))),
  );
}

function renderRows(view, catalog, ui) {
  const rows = [3, 2, 1].map((level) => {
    const slots = (view.board && view.board[String(level)]) || [];
    const count = (view.decks && view.decks[String(level)]) ?? 0;
    const selection = ui ? ui.selection : null;
    const deck = h(
      "div",
      { class: "slot deck-slot", dataset: { deck: String(level), count: String(count) } },
      count
        ? cardBack(level, {
            count,
            onClick: ui ? () => ui.onDeck(level) : null,
            extra: ["deck", selection && selection.deck === level && "selected"],
            attrs: ui ? { "data-key": `deck-${level}`, "aria-pressed": String(!!(selection && selection.deck === level)) } : {},
            label: ui
              ? tn("Level {level} deck, {n} card left: choose to reserve its top card blind", "Level {level} deck, {n} cards left: choose to reserve its top card blind", count, { level })
              : tn("Level {level} deck, {n} card left", "Level {level} deck, {n} cards left", count, { level }),
          })
        : h("div", { class: "card card-empty deck-empty", role: "img", "aria-label": t("Level {level} deck is empty", { level }) }, h("span", { class: "back-count" }, formatNumber(0))),
    );
    const cards = [0, 1, 2, 3].map((index) => {
      const id = slots[index] ?? null;
      const card = id ? catalog.cards[id] : null;
      const selected = !!(selection && id && selection.card === id);
      return h(
        "div",
        { class: "slot", dataset: { level: String(level), index: String(index), card: id || "" } },
        card
          ? cardFace(id, card, {
              onClick: ui ? () => ui.onCard(id) : null,
              extra: [selected && "selected", ui && ui.affordable && ui.affordable.has(id) && "affordable"],
              attrs: ui ? { "data-key": `card-${id}`, "aria-pressed": String(selected) } : {},
              label: ui ? (ui.affordable && ui.affordable.has(id) ? t("{card}, you can buy it", { card: cardLabel(card) }) : cardLabel(card)) : null,
            })
          : h("div", { class: "card card-empty", role: "img", "aria-label": t("Empty slot") }),
      );
    });
    return h(
      "div",
      { class: "card-row", dataset: { row: String(level) }, role: "group", "aria-label": t("Level {level} cards", { level }) },
      deck,
      cards,
    );
  });
  return h("div", { class: "rows" }, rows);
}

function renderBank(view, ui) {
  const bank = view.bank || {};
  const selection = (ui && ui.selection && ui.selection.tokens) || {};
  return h(
    "div",
    { class: "bank", role: "group", "aria-label": t("The bank") },
    h("h2", { class: "bank-title" }, tp("term", "Bank")),
    TOKENS.map((color) => {
      const count = bank[color] ?? 0;
      const picked = selection[color] || 0;
      const label = bankLabel(color, count, picked);
      const inner = [
        h("span", { class: "token-disc" }, gemIcon(color)),
        h("span", { class: "token-count" }, formatNumber(count)),
        picked ? h("span", { class: "picked", "aria-hidden": "true" }, `+${formatNumber(picked)}`) : null,
      ];
      if (ui && color !== "gold") {
        return h(
          "button",
          {
            type: "button",
            class: ["token", "token-lg", `token-${color}`, "bank-token", picked && "picked-token"],
            dataset: { bank: color, count: String(count), key: `bank-${color}` },
            "aria-label": label,
            "aria-pressed": String(picked > 0),
            disabled: !ui.tokenEnabled(color),
            onclick: () => ui.onToken(color),
          },
          inner,
        );
      }
      return h(
        "div",
        { class: ["token", "token-lg", `token-${color}`, "bank-token"], role: "img", "aria-label": label, title: label, dataset: { bank: color, count: String(count) } },
        inner,
      );
    }),
  );
}

/** Every player's area: tokens, bonuses (cards by colour), points, reserves, nobles. */
export function renderPlayers(view, catalog, ui = null) {
  const turn = view.turn || {};
  return h(
    "div",
    { class: "players", role: "list", "aria-label": t("Players") },
    (view.players || []).map((p) => renderPlayer(view, p, catalog, ui, view.status === "live" && turn.seat === p.seat)),
  );
}

function renderPlayer(view, p, catalog, ui, toPlay) {
  const mine = view.you !== null && view.you !== undefined && view.you === p.seat;
  const held = TOKENS.reduce((n, c) => n + (p.tokens[c] || 0), 0);
  const winner = view.result && view.result.winners.includes(p.seat);
  const name = seatLabel(view.players, p);
  const byColor = {};
  for (const id of p.cards) {
    const card = catalog.cards[id];
    if (!card) continue;
    (byColor[card.color] ||= []).push(card);
  }
  return h(
    "section",
    {
      class: ["player", toPlay && "to-play", mine && "mine", winner && "winner"],
      role: "listitem",
      "aria-label": playerLabel(name, mine, toPlay, tn("{n} point", "{n} points", p.points)),
      dataset: {
        player: String(p.seat),
        points: String(p.points),
        tokens: p.tokens,
        bonuses: p.bonuses,
        cards: p.cards,
        reserved: p.reserved,
        nobles: p.nobles,
      },
    },
    h(
      "header",
      { class: "player-head" },
      h("span", { class: "turn-dot", "aria-hidden": "true" }),
      h("span", { class: "player-name" }, name),
      mine ? h("span", { class: "tag tag-you" }, t("you")) : null,
      botTag(p) ? h("span", { class: "tag tag-bot" }, botTag(p)) : null,
      winner ? h("span", { class: "tag tag-win" }, t("winner")) : null,
      h("span", { class: "player-points", "aria-hidden": "true" }, formatNumber(p.points), h("small", {}, t("pts"))),
    ),
    h(
      "div",
      { class: "player-gems" },
      TOKENS.map((color) => {
        const cards = byColor[color] || [];
        const bonus = p.bonuses[color] || 0;
        const points = cards.reduce((n, c) => n + c.points, 0);
        const worth = { cards: colourCards(color, bonus), points: tn("{n} point", "{n} points", points) };
        return h(
          "div",
          { class: ["gem-col", `gem-col-${color}`] },
          color === "gold"
            ? h("span", { class: "bonus bonus-none", "aria-hidden": "true" })
            : h(
                "span",
                {
                  class: ["bonus", `bonus-${color}`, bonus === 0 && "bonus-zero", bonus > 1 && "stack-2", bonus > 2 && "stack-3"],
                  role: "img",
                  "aria-label": points ? t("{cards} worth {points}", worth) : worth.cards,
                  title: points ? t("{cards}, {points}", worth) : worth.cards,
                },
                gemIcon(color, "bonus-icon"),
                h("span", { class: "bonus-count" }, formatNumber(bonus)),
                points ? h("span", { class: "bonus-points" }, `${formatNumber(points)}★`) : null,
              ),
          tokenChip(color, p.tokens[color] || 0, { size: "sm", label: heldTokens(color, p.tokens[color] || 0) }),
        );
      }),
    ),
    h(
      "div",
      { class: "player-extra" },
      h("span", { class: ["held", held > 10 && "over"], title: t("Tokens held (10 at most at a turn's end)") }, heldOfTen(held)),
      h(
        "div",
        { class: "reserved", role: "list", "aria-label": tn("{n} reserved card", "{n} reserved cards", p.reserved.length) },
        p.reserved.map((r, i) => {
          if (r.card) {
            const card = catalog.cards[r.card];
            const selected = !!(ui && ui.selection && ui.selection.reserved === r.card);
            const clickable = ui && mine;
            return h(
              "div",
              { role: "listitem", class: "reserved-item" },
              cardFace(r.card, card, {
                size: "sm",
                onClick: clickable ? () => ui.onReserved(r.card) : null,
                extra: ["reserved-card", selected && "selected", clickable && ui.affordable && ui.affordable.has(r.card) && "affordable"],
                attrs: clickable ? { "data-key": `res-${r.card}`, "aria-pressed": String(selected) } : {},
                label: t("Reserved: {card}", { card: cardLabel(card) }),
              }),
            );
          }
          return h("div", { role: "listitem", class: "reserved-item" }, cardBack(r.level, { size: "sm", label: t("A hidden reserved level-{level} card", { level: r.level }), attrs: { "data-hidden-level": String(r.level), "data-key": `hidden-${p.seat}-${i}` } }));
        }),
      ),
      p.nobles.length
        ? h(
            "div",
            { class: "player-nobles", role: "list", "aria-label": tn("{n} noble", "{n} nobles", p.nobles.length) },
            p.nobles.map((id) => h("div", { role: "listitem" }, nobleTile(id, catalog.nobles[id], { size: "sm" }))),
          )
        : null,
    ),
  );
}

export { GEMS };

/** "4 red (ruby) in the bank, 1 picked". */
function bankLabel(color, count, picked) {
  const args = { tokens: gemCount(color, count), picked };
  return picked ? t("{tokens} in the bank, {picked} picked", args) : t("{tokens} in the bank", args);
}

/** "Ana (you), 3 points, to play": a player's area as a screen reader names it. */
export function playerLabel(name, mine, toPlay, score) {
  const args = { name, score };
  if (mine) return toPlay ? t("{name} (you), {score}, to play", args) : t("{name} (you), {score}", args);
  return toPlay ? t("{name}, {score}, to play", args) : t("{name}, {score}", args);
}

/** "3 red (ruby) tokens": a player's tokens of a colour. */
export function heldTokens(color, n) {
  return tn("{n} {gem} token", "{n} {gem} tokens", n, { gem: gemLabel(color) });
}

/** "7/10 tokens": the tokens a player holds of the 10 allowed. */
export function heldOfTen(held) {
  return t("{held}/10 tokens", { held });
}

/** "2 red cards": a player's cards of a colour. */
function colourCards(color, n) {
  return tn("{n} {colour} card", "{n} {colour} cards", n, { colour: colourWord(color) });
}

/**
 * Bring the selection shown on an already drawn table up to date (picked tokens,
 * the chosen card or deck, which bank tokens may still be picked) without drawing
 * it again: clicks while choosing cost no re-render.
 */
export function decorate(root, view, ui) {
  const sel = ui.selection;
  for (const button of root.querySelectorAll("button[data-bank]")) {
    const color = button.dataset.bank;
    const picked = sel.tokens[color] || 0;
    button.classList.toggle("picked-token", picked > 0);
    button.setAttribute("aria-pressed", String(picked > 0));
    button.disabled = !ui.tokenEnabled(color);
    if (ui.tokenWhy) explain(button, button.disabled ? ui.tokenWhy(color) : null, ui.whyLine);
    button.setAttribute("aria-label", bankLabel(color, Number(button.dataset.count), picked));
    let badge = button.querySelector(".picked");
    if (picked && !badge) {
      badge = h("span", { class: "picked", "aria-hidden": "true" });
      button.append(badge);
    }
    if (badge) {
      if (picked) badge.textContent = `+${formatNumber(picked)}`;
      else badge.remove();
    }
  }
  for (const button of root.querySelectorAll("button.card[data-card]")) {
    const id = button.dataset.card;
    const chosen = button.classList.contains("reserved-card") ? sel.reserved === id : sel.card === id;
    button.classList.toggle("selected", chosen);
    button.setAttribute("aria-pressed", String(chosen));
  }
  for (const button of root.querySelectorAll("[data-deck] button")) {
    const chosen = sel.deck === Number(button.closest("[data-deck]").dataset.deck);
    button.classList.toggle("selected", chosen);
    button.setAttribute("aria-pressed", String(chosen));
  }
}

/** The board before the game starts: a gem mark and what will happen (both games). */
export function waitingBoard(message) {
  return h(
    "div",
    { class: "board-area board-waiting" },
    svg("0 0 40 40", '<path d="M20 4 34 14 20 36 6 14Z"/><path class="facet" d="M6 14h28M13 14l7 22 7-22M12 6.5l1 7.5 7-10 7 10 1-7.5"/>', { class: "waiting-mark" }),
    h("p", {}, message),
  );
}
