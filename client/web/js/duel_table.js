// The table of a Splendor Duel drawn from a view: the 5x5 token board, the
// privileges in the supply and the bag, the royal cards, the pyramid (5/4/3
// cards, level 3 on top) with its decks, and both players' areas.
//
// Like table.js it serves playing, watching and replaying; `ui` (from
// DuelControls.tableUi) makes it clickable, and every part restates the view it
// shows in data-attributes that the browser tests compare with GET /view.

import { h } from "./dom.js";
import { formatNumber, t, tn, tp } from "./i18n.js";
import { heldOfTen, heldTokens, playerLabel, tableDataset, waitingBoard } from "./table.js";
import { explain } from "./reasons.js";
import { bestColour, crownsHelp, duelCardBack, duelCardFace, duelCardLabel, icon, privilegeScrolls, royalTile } from "./duel_cards.js";
import { DUEL_TOKENS, GEMS, colourWord, gemCount, gemIcon, gemLabel, tokenChip } from "./gems.js";
import { botTag, seatLabel } from "./words.js";

const SIZE = 5;
const PYRAMID = { 3: 3, 2: 4, 1: 5 };

/**
 * ui (optional): {
 *   cellState(r, c) -> {enabled, selected, hint}, onCell(r, c),
 *   cardState(id) -> {selected}, onCard(id), deckState(level) -> {enabled, selected}, onDeck(level),
 *   onReserved(id), affordable: Set of card ids
 * }
 */
export function renderDuelTable(view, catalog, ui = null) {
  return h(
    "section",
    {
      class: ["table", "duel-table", ui && "interactive"],
      id: "table",
      "aria-label": t("The table"),
      dataset: {
        ...tableDataset(view),
        variant: "duel",
        acting: ui && ui.acting ? "true" : "false",
      },
    },
    view.status === "open"
      ? waitingBoard(t("The tokens are laid on the board and the pyramid dealt when the second player sits down."))
      : h(
          "div",
          { class: "board-area duel-area" },
          h("div", { class: "duel-left" }, renderTokenBoard(view, ui), renderSupply(view)),
          h("div", { class: "duel-right" }, renderRoyals(view, catalog), renderPyramid(view, catalog, ui)),
        ),
  );
}

function cellLabel(r, c, token) {
  const what = token ? gemLabel(token) : t("empty");
  return t("Row {row}, column {column}: {token}", { row: r + 1, column: c + 1, token: what });
}

export function renderTokenBoard(view, ui) {
  const cells = [];
  for (let r = 0; r < SIZE; r += 1) {
    for (let c = 0; c < SIZE; c += 1) {
      const token = (view.board && view.board[r] && view.board[r][c]) || null;
      const data = { row: String(r), col: String(c), token: token || "" };
      const inner = token ? h("span", { class: `token token-${token}` }, h("span", { class: "token-disc" }, gemIcon(token))) : h("span", { class: "cell-hole" });
      if (ui) {
        const st = ui.cellState(r, c);
        cells.push(
          h(
            "button",
            {
              type: "button",
              class: ["cell", token ? `cell-${token}` : "cell-empty", st.selected && "selected", st.hint && "hint-cell"],
              dataset: { ...data, key: `cell-${r}-${c}` },
              "aria-label": cellLabel(r, c, token),
              "aria-pressed": String(!!st.selected),
              disabled: !st.enabled,
              onclick: () => ui.onCell(r, c),
            },
            inner,
          ),
        );
      } else {
        cells.push(h("div", { class: ["cell", token ? `cell-${token}` : "cell-empty"], dataset: data, role: "img", "aria-label": cellLabel(r, c, token) }, inner));
      }
    }
  }
  const left = (view.board || []).flat().filter(Boolean).length;
  return h("div", { class: "token-board", id: "token-board", role: "group", "aria-label": tn("The board: {n} token", "The board: {n} tokens", left) }, cells);
}

function renderSupply(view) {
  const bag = view.bag || {};
  const inBag = DUEL_TOKENS.reduce((n, t) => n + (bag[t] || 0), 0);
  return h(
    "div",
    { class: "duel-supply" },
    h(
      "div",
      { class: "privilege-supply", id: "privilege-supply", dataset: { count: String(view.privileges ?? 0) } },
      h("span", { class: "supply-title" }, tp("term", "Privileges")),
      privilegeScrolls(view.privileges ?? 0, { label: tn("{n} privilege in the supply", "{n} privileges in the supply", view.privileges ?? 0) }),
    ),
    h(
      "div",
      { class: "bag", id: "bag", role: "group", "aria-label": tn("The bag: {n} token", "The bag: {n} tokens", inBag) },
      h("span", { class: "supply-title" }, t("Bag · {n}", { n: inBag })),
      h(
        "span",
        { class: "bag-tokens" },
        DUEL_TOKENS.map((kind) =>
          h(
            "span",
            { class: ["bag-token", !bag[kind] && "bag-none"], dataset: { bag: kind, count: String(bag[kind] || 0) } },
            tokenChip(kind, bag[kind] || 0, { size: "sm", label: t("{tokens} in the bag", { tokens: gemCount(kind, bag[kind] || 0) }) }),
          ),
        ),
      ),
    ),
  );
}

function renderRoyals(view, catalog) {
  const royals = view.royals || [];
  return h(
    "div",
    { class: "royals", role: "list", "aria-label": t("Royal cards still available: {n}", { n: royals.length }) },
    royals.map((id) => h("div", { role: "listitem" }, royalTile(id, catalog.royals[id]))),
    royals.length ? null : h("p", { class: "royals-gone" }, t("Every royal card has been taken.")),
  );
}

function renderPyramid(view, catalog, ui) {
  const rows = [3, 2, 1].map((level) => {
    const slots = (view.pyramid && view.pyramid[String(level)]) || [];
    const count = (view.decks && view.decks[String(level)]) ?? 0;
    const deckState = ui ? ui.deckState(level) : null;
    const deck = h(
      "div",
      { class: "slot deck-slot", dataset: { deck: String(level), count: String(count) } },
      count
        ? duelCardBack(level, {
            count,
            onClick: ui ? () => ui.onDeck(level) : null,
            extra: ["deck", deckState && deckState.selected && "selected"],
            attrs: ui ? { "data-key": `deck-${level}`, "aria-pressed": String(!!(deckState && deckState.selected)), disabled: !deckState.enabled } : {},
            label: ui
              ? tn("Level {level} deck, {n} card left: choose it to reserve its top card", "Level {level} deck, {n} cards left: choose it to reserve its top card", count, { level })
              : tn("Level {level} deck, {n} card left", "Level {level} deck, {n} cards left", count, { level }),
          })
        : h("div", { class: "card card-empty deck-empty", role: "img", "aria-label": t("Level {level} deck is empty", { level }) }, h("span", { class: "back-count" }, formatNumber(0))),
    );
    const cards = Array.from({ length: PYRAMID[level] }, (_, index) => {
      const id = slots[index] ?? null;
      const card = id ? catalog.cards[id] : null;
      const state = ui && id ? ui.cardState(id) : { selected: false, hint: false };
      const selected = !!state.selected;
      const affordable = !!(ui && id && ui.affordable.has(id));
      return h(
        "div",
        { class: "slot", dataset: { level: String(level), index: String(index), card: id || "" } },
        card
          ? duelCardFace(id, card, {
              onClick: ui ? () => ui.onCard(id) : null,
              extra: [selected && "selected", state.hint && "hint-card", affordable && "affordable"],
              attrs: ui ? { "data-key": `card-${id}`, "aria-pressed": String(selected) } : {},
              label: ui ? (affordable ? t("{card}, you can buy it", { card: duelCardLabel(card) }) : duelCardLabel(card)) : null,
            })
          : h("div", { class: "card card-empty", role: "img", "aria-label": t("Empty slot") }),
      );
    });
    return h(
      "div",
      { class: "pyramid-row", dataset: { row: String(level) }, role: "group", "aria-label": t("Level {level} cards", { level }) },
      deck,
      h("div", { class: "pyramid-cards" }, cards),
    );
  });
  return h("div", { class: "pyramid" }, rows);
}

// ---------------------------------------------------------------- players

export function renderDuelPlayers(view, catalog, ui = null) {
  const turn = view.turn || {};
  return h(
    "div",
    { class: "players duel-players", role: "list", "aria-label": t("Players") },
    (view.players || []).map((p) => renderPlayer(view, p, catalog, ui, view.status === "live" && turn.seat === p.seat)),
  );
}

/** A bar towards a victory; `colour`: the colour it counts, said in its tooltip. */
function meter(label, value, goal, colour = null) {
  const full = Math.min(1, value / goal);
  const args = { label, value, goal, colour: colour ? colourWord(colour) : "" };
  return h(
    "span",
    { class: ["meter", value >= goal && "meter-done"], title: colour ? t("{label}: {value} of {goal} ({colour})", args) : t("{label}: {value} of {goal}", args), style: { "--fill": `${Math.round(full * 100)}%` } },
    h("span", { class: "meter-label" }, label),
    h("span", { class: "meter-value" }, `${formatNumber(value)}/${formatNumber(goal)}`),
  );
}

function renderPlayer(view, p, catalog, ui, toPlay) {
  const mine = view.you !== null && view.you !== undefined && view.you === p.seat;
  const held = DUEL_TOKENS.reduce((n, c) => n + (p.tokens[c] || 0), 0);
  const winner = view.result && view.result.winners.includes(p.seat);
  const name = seatLabel(view.players, p);
  const colourPoints = p.colour_points || {};
  const [best, bestPoints] = bestColour(p);
  const noBonus = p.cards.filter((id) => catalog.cards[id] && catalog.cards[id].color === "none").length;
  const score = t("{points}, {crowns}", { points: pointWords(p.points), crowns: crownWords(p.crowns) });
  const wildsOn = {};
  for (const colour of Object.values(p.wilds || {})) wildsOn[colour] = (wildsOn[colour] || 0) + 1;
  return h(
    "section",
    {
      class: ["player", "duel-player", toPlay && "to-play", mine && "mine", winner && "winner"],
      role: "listitem",
      "aria-label": playerLabel(name, mine, toPlay, score),
      dataset: {
        player: String(p.seat),
        points: String(p.points),
        crowns: String(p.crowns),
        privileges: String(p.privileges),
        tokens: p.tokens,
        bonuses: p.bonuses,
        colourPoints: colourPoints,
        cards: p.cards,
        reserved: p.reserved,
        royals: p.royals,
        wilds: p.wilds || {},
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
      toPlay && view.turn && view.turn.extra_turn ? h("span", { class: "tag tag-extra" }, t("extra turn")) : null,
      h(
        "span",
        { class: "player-stats" },
        h("span", { class: "stat stat-crowns", title: tn("{n} crown. {help}", "{n} crowns. {help}", p.crowns, { help: crownsHelp(catalog) }), "aria-hidden": "true" }, icon("crown", "stat-icon"), formatNumber(p.crowns)),
        privilegeScrolls(p.privileges, { label: tn("{n} privilege held", "{n} privileges held", p.privileges) }),
        h("span", { class: "player-points", "aria-hidden": "true" }, formatNumber(p.points), h("small", {}, t("pts"))),
      ),
    ),
    h(
      "div",
      { class: "victory-meters", "aria-label": t("Towards victory: {points} of 20 points, {crowns} of 10 crowns, {best} of 10 points in {colour}", { points: p.points, crowns: p.crowns, best: bestPoints, colour: colourWord(best) }) },
      meter(tp("term", "Points"), p.points, 20),
      meter(tp("term", "Crowns"), p.crowns, 10),
      meter(tp("term", "Best colour"), bestPoints, 10, best),
    ),
    h(
      "div",
      { class: "player-gems duel-gems" },
      DUEL_TOKENS.map((color) => {
        const isGem = GEMS.includes(color);
        const bonus = isGem ? p.bonuses[color] || 0 : 0;
        const points = isGem ? colourPoints[color] || 0 : 0;
        const wilds = wildsOn[color] || 0;
        const bonusWords = bonusLabel(color, bonus, wilds);
        const pointsOn = { bonus: bonusWords, points: tn("{n} point", "{n} points", points), colour: colourWord(color) };
        return h(
          "div",
          { class: ["gem-col", `gem-col-${color}`], dataset: { col: color } },
          isGem
            ? h(
                "span",
                {
                  class: ["bonus", `bonus-${color}`, bonus === 0 && "bonus-zero", bonus > 1 && "stack-2", bonus > 2 && "stack-3"],
                  role: "img",
                  "aria-label": points ? t("{bonus}, {points} on {colour} cards", pointsOn) : bonusWords,
                  title: points ? t("{bonus}; {points} on {colour} cards", pointsOn) : bonusWords,
                  dataset: { wilds: wilds ? String(wilds) : null },
                },
                gemIcon(color, "bonus-icon"),
                h("span", { class: "bonus-count" }, formatNumber(bonus)),
                wilds ? h("span", { class: "wild-mark", "aria-hidden": "true" }, gemIcon("wild", "wild-icon"), wilds > 1 ? formatNumber(wilds) : null) : null,
                points ? h("span", { class: "bonus-points" }, `${formatNumber(points)}★`) : null,
              )
            : h("span", { class: "bonus bonus-none", "aria-hidden": "true" }),
          tokenChip(color, p.tokens[color] || 0, { size: "sm", label: heldTokens(color, p.tokens[color] || 0) }),
        );
      }),
    ),
    h(
      "div",
      { class: "player-extra" },
      h("span", { class: ["held", held > 10 && "over"], title: t("Tokens held (10 at most at a turn's end)") }, heldOfTen(held)),
      noBonus ? h("span", { class: "held", title: t("Cards without a bonus (points only)") }, tn("+{n} card without bonus", "+{n} cards without bonus", noBonus)) : null,
      h(
        "div",
        { class: "reserved", role: "list", "aria-label": tn("{n} reserved card", "{n} reserved cards", p.reserved.length) },
        p.reserved.map((r, i) => {
          if (r.card) {
            const card = catalog.cards[r.card];
            const clickable = !!(ui && mine);
            const selected = !!(clickable && ui.reservedState(r.card).selected);
            const affordable = clickable && ui.affordable.has(r.card);
            return h(
              "div",
              { role: "listitem", class: "reserved-item" },
              duelCardFace(r.card, card, {
                size: "sm",
                onClick: clickable ? () => ui.onReserved(r.card) : null,
                extra: ["reserved-card", selected && "selected", affordable && "affordable"],
                attrs: clickable ? { "data-key": `res-${r.card}`, "aria-pressed": String(selected) } : {},
                label: affordable ? t("Reserved: {card}, you can buy it", { card: duelCardLabel(card) }) : t("Reserved: {card}", { card: duelCardLabel(card) }),
              }),
            );
          }
          return h(
            "div",
            { role: "listitem", class: "reserved-item" },
            duelCardBack(r.level, { size: "sm", label: t("A hidden reserved level-{level} card", { level: r.level }), attrs: { "data-hidden-level": String(r.level), "data-key": `hidden-${p.seat}-${i}` } }),
          );
        }),
      ),
      p.royals.length
        ? h(
            "div",
            { class: "player-royals", role: "list", "aria-label": tn("{n} royal card", "{n} royal cards", p.royals.length) },
            p.royals.map((id) => h("div", { role: "listitem" }, royalTile(id, catalog.royals[id], { size: "sm" }))),
          )
        : null,
    ),
  );
}

function pointWords(n) {
  return tn("{n} point", "{n} points", n);
}

function crownWords(n) {
  return tn("{n} crown", "{n} crowns", n);
}

/** "red bonus 2, a wild card among them": a player's bonus of a colour. */
function bonusLabel(color, bonus, wilds) {
  const words = t("{colour} bonus {n}", { colour: colourWord(color), n: bonus });
  if (!wilds) return words;
  return tn("{bonus}, a wild card among them", "{bonus}, {n} wild cards among them", wilds, { bonus: words });
}

/**
 * Bring the selection shown on a drawn Duel table up to date without drawing it
 * again (cells picked, cells that may be picked, the chosen card or deck).
 */
export function decorateDuel(root, view, ui) {
  const table = root.querySelector("#table");
  if (table) table.dataset.acting = ui.acting ? "true" : "false";
  for (const button of root.querySelectorAll("button.cell")) {
    const st = ui.cellState(Number(button.dataset.row), Number(button.dataset.col));
    button.classList.toggle("selected", !!st.selected);
    button.classList.toggle("hint-cell", !!st.hint);
    button.setAttribute("aria-pressed", String(!!st.selected));
    button.disabled = !st.enabled;
    if (ui.cellWhy) explain(button, st.enabled || !button.dataset.token ? null : ui.cellWhy(Number(button.dataset.row), Number(button.dataset.col)), ui.whyLine);
  }
  for (const button of root.querySelectorAll("button.card[data-card]")) {
    const id = button.dataset.card;
    const reserved = button.classList.contains("reserved-card");
    const st = reserved ? ui.reservedState(id) : ui.cardState(id);
    const chosen = !!st.selected;
    button.classList.toggle("selected", chosen);
    button.classList.toggle("hint-card", !reserved && !!st.hint);
    button.setAttribute("aria-pressed", String(chosen));
  }
  for (const button of root.querySelectorAll("[data-deck] button")) {
    const st = ui.deckState(Number(button.closest("[data-deck]").dataset.deck));
    button.classList.toggle("selected", !!st.selected);
    button.classList.toggle("hint-deck", !!st.hint);
    button.setAttribute("aria-pressed", String(!!st.selected));
    button.disabled = !st.enabled;
    if (ui.deckWhy) explain(button, st.enabled ? null : ui.deckWhy(), ui.whyLine);
  }
}
