// `#/join/{id}`: the address a player shares. Takes a seat with a name, keeps its
// token in localStorage, and goes to the table. A browser already seated there
// goes straight back to its seat, and so does a logged-in account seated there (its
// seat's token asked with the session: seatback.js).

import { accountName, askToLogIn, onAccountChange, whenAccountKnown } from "./account.js";
import { ApiError, gameSummary, takeSeat } from "./api.js";
import { h, listWords, mount } from "./dom.js";
import { t, tn } from "./i18n.js";
import { seatBack } from "./seatback.js";
import { playerName, rememberName, rememberSeat, seatFor } from "./seats.js";
import { clockWords } from "./timecontrol.js";
import { seatName, variantName } from "./words.js";

export async function showJoin(main, gameId) {
  if (seatFor(gameId)) {
    window.location.replace(`#/play/${encodeURIComponent(gameId)}`);
    return () => {};
  }
  mount(main, h("p", { class: "loading" }, t("Loading the game…")));
  let game;
  try {
    game = await gameSummary(gameId);
  } catch (err) {
    mount(main, h("section", { class: "panel notice" }, h("h1", {}, t("No such game")), h("p", {}, err.message), h("a", { class: "btn", href: "#/" }, t("Back to the lobby"))));
    return () => {};
  }
  if (await seatBack(gameId, game)) {
    if (main.isConnected) window.location.replace(`#/play/${encodeURIComponent(gameId)}`); // unless left meanwhile
    return () => {};
  }
  const seated = game.seats || [];
  const names = seated.map((s) => seatName(s.name, s.bot));
  if (game.status !== "open") {
    const replay = game.status === "finished";
    // A seat of an account, opened where nobody is logged in (the link of a "your
    // move" e-mail on another device): logging in takes the seat back.
    const mayBeYours = !replay && !(await whenAccountKnown()) && seated.some((s) => s.account);
    mount(
      main,
      h(
        "section",
        { class: "panel notice" },
        h("h1", {}, replay ? t("This game is over") : t("This game has already started")),
        h("p", {}, replay ? t("{players} played it; every seat is taken.", { players: listWords(names) }) : t("{players} are playing it; every seat is taken.", { players: listWords(names) })),
        mayBeYours ? h("p", { class: "hint" }, t("Is one of these seats yours? Log in to take it.")) : null,
        mayBeYours ? h("button", { type: "button", class: "btn btn-primary", id: "started-log-in", onclick: () => askToLogIn("login") }, t("Log in")) : null,
        h("a", { class: ["btn", !mayBeYours && "btn-primary"], href: `#/${replay ? "replay" : "watch"}/${encodeURIComponent(gameId)}` }, replay ? t("Replay it") : t("Watch it")),
        " ",
        h("a", { class: "btn", href: "#/" }, t("Back to the lobby")),
      ),
    );
    if (!mayBeYours) return () => {};
    return onAccountChange(async () => {
      if ((await seatBack(gameId, game)) && main.isConnected) window.location.replace(`#/play/${encodeURIComponent(gameId)}`);
    });
  }
  await whenAccountKnown();
  // Logged in, the seat is the account's; a rated game seats accounts only
  // (docs/accounts.md): drawn again when this browser logs in or out.
  const draw = () => drawJoin(main, gameId, game, names);
  const forget = onAccountChange(draw);
  draw();
  return forget;
}

/** "Time control: 5+3" (or "untimed"): a player knows what they sit down to. */
function clockLine(game) {
  return h("p", { class: "join-clock", id: "join-clock" }, t("Time control: {clock}", { clock: clockWords(game.clock) }));
}

function drawJoin(main, gameId, game, names) {
  const seated = game.seats || [];
  const account = accountName();
  if (game.rated && !account) {
    mount(
      main,
      h(
        "section",
        { class: "panel join-panel", id: "join-rated" },
        h("h1", { class: "panel-title" }, t("Join a rated game of {game}", { game: variantName(game.variant) })),
        h("p", {}, t("This game is rated: only players logged in to an account can take a seat.")),
        clockLine(game),
        h(
          "div",
          { class: "form-actions" },
          h("button", { type: "button", class: "btn btn-primary", id: "join-login", onclick: () => askToLogIn("login") }, t("Log in")),
          h("button", { type: "button", class: "btn", onclick: () => askToLogIn("signup") }, t("Sign up")),
          h("a", { class: "btn", href: `#/watch/${encodeURIComponent(gameId)}` }, t("Just watch")),
        ),
      ),
    );
    return;
  }
  const input = h("input", { id: "join-name", type: "text", maxlength: "24", autocomplete: "nickname", value: playerName(), placeholder: t("Your name"), required: true });
  const error = h("p", { class: "form-error", role: "alert", id: "join-error" });
  const submit = h("button", { type: "submit", class: "btn btn-primary", id: "join-game" }, t("Take a seat"));
  const taken = { seated: seated.length, seats: game.players };
  // Translators: {seated} of {seats} seats are taken; {players} lists who sits.
  const host = names.length
    ? tn("{players} is waiting: {seated} seat of {seats} taken. The game starts when the last seat is taken.", "{players} are waiting: {seated} seats of {seats} taken. The game starts when the last seat is taken.", names.length, { ...taken, players: listWords(names) })
    : t("Nobody has sat down yet: {seated} seats of {seats} taken. The game starts when the last seat is taken.", taken);
  mount(
    main,
    h(
      "form",
      {
        class: "panel join-panel",
        "aria-labelledby": "join-title",
        onsubmit: async (e) => {
          e.preventDefault();
          const name = account || input.value.trim();
          if (!name) {
            error.textContent = t("Write your name first: the other players see it.");
            input.focus();
            return;
          }
          if (!account) rememberName(name);
          submit.disabled = true;
          error.textContent = "";
          try {
            const seat = await takeSeat(gameId, account ? {} : { name });
            rememberSeat(gameId, { seat: seat.seat, token: seat.token, name });
            window.location.hash = `#/play/${encodeURIComponent(gameId)}`;
          } catch (err) {
            error.textContent = err instanceof ApiError && err.code === "illegal_action" ? t("{problem} You can still watch it.", { problem: err.message }) : err.message;
            submit.disabled = false;
          }
        },
      },
      h("h1", { id: "join-title", class: "panel-title" }, game.rated ? t("Join a rated game of {game}", { game: variantName(game.variant) }) : t("Join a game of {game}", { game: variantName(game.variant) })),
      h("p", {}, host),
      clockLine(game),
      account
        ? h("p", { id: "joining-as" }, t("You join as {name}.", { name: account }))
        : h("div", { class: "field" }, h("label", { for: "join-name" }, t("Your name")), input),
      h("div", { class: "form-actions" }, submit, h("a", { class: "btn", href: `#/watch/${encodeURIComponent(gameId)}` }, t("Just watch"))),
      error,
    ),
  );
  (account ? submit : input).focus();
}
