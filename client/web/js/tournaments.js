// The tournaments (`#/tournaments`): the upcoming, running and finished ones
// (GET /api/tournaments, asked again every few seconds and when a countdown runs
// out), and for a logged-in player the form that creates an arena or a Swiss
// (docs/tournaments.md "Pages").

import { accountName, askToLogIn, onAccountChange, whenAccountKnown } from "./account.js";
import { createTournament, listTournaments } from "./api.js";
import { h, mount } from "./dom.js";
import { formatDate, t, tn, tp } from "./i18n.js";
import { PRESETS } from "./timecontrol.js";
import { countdown, kindLine, playersWords, roundWords, tickCountdowns, tournamentHref, tournamentName, tournamentRefusal } from "./tournament_words.js";

const REFRESH_MS = 10000;
// The time controls a tournament may have: the lobby's real-time presets.
const CLOCKS = PRESETS.filter(([, , clock]) => clock && clock.initial);
const DURATIONS = [10, 20, 30, 45, 60, 90, 120, 180]; // minutes, an arena's
const DEFAULT_DURATION = 30;
const ROUNDS = [3, 4, 5, 6, 7, 8, 9, 10, 11]; // a Swiss's
const DEFAULT_ROUNDS = 5;
const STARTS = [0, 60, 300, 600, 900, 1800, 3600]; // seconds from now
const DEFAULT_START = 300;

export function showTournaments(main) {
  const lists = {
    running: h("div", { class: "game-list", id: "running-tournaments" }),
    upcoming: h("div", { class: "game-list", id: "upcoming-tournaments" }),
    finished: h("div", { class: "game-list", id: "finished-tournaments" }),
  };
  const error = h("p", { class: "form-error", role: "alert", id: "tournaments-error" });
  const { panel, showAccount } = createPanel();
  const forgetAccount = onAccountChange(showAccount);
  whenAccountKnown().then(showAccount);
  const section = (key, title) =>
    h("section", { class: "panel", "aria-labelledby": `${key}-title` }, h("h2", { id: `${key}-title`, class: "panel-title" }, title), lists[key]);
  mount(
    main,
    h(
      "div",
      { class: "lobby tournaments" },
      h("div", { class: "lobby-col" }, h("h1", { class: "page-title" }, t("Tournaments")), panel),
      h(
        "div",
        { class: "lobby-col" },
        error,
        section("running", tp("tournaments", "Running: join or watch")),
        section("upcoming", tp("tournaments", "Upcoming")),
        section("finished", tp("tournaments", "Finished")),
      ),
    ),
  );
  let stopped = false;
  const refresh = async () => {
    if (stopped || document.hidden) return;
    try {
      const all = await listTournaments();
      if (stopped) return;
      error.textContent = "";
      mount(lists.running, rows(all.running, t("No tournament is running right now.")));
      mount(lists.upcoming, rows(all.upcoming, t("No tournament is planned yet: create one.")));
      mount(lists.finished, rows(all.finished, t("No tournament has finished yet.")));
    } catch (err) {
      if (!stopped) error.textContent = tournamentRefusal(err);
    }
  };
  refresh();
  const timer = window.setInterval(refresh, REFRESH_MS);
  // A countdown that runs out moves its tournament to the next list: asked again then.
  let due = false;
  const ticker = window.setInterval(() => {
    const now = tickCountdowns(main);
    if (now && !due) refresh();
    due = now;
  }, 1000);
  return () => {
    stopped = true;
    forgetAccount();
    window.clearInterval(timer);
    window.clearInterval(ticker);
  };
}

function rows(list, none) {
  return list && list.length ? list.map(row) : [h("p", { class: "empty" }, none)];
}

/** A tournament's row: its name, what it is, who plays, when; Open. */
export function row(s) {
  const when = s.status === "finished" ? h("span", { class: "muted" }, t("ended {date}", { date: formatDate(s.ends_ms || s.starts_ms) })) : countdown(s);
  return h(
    "div",
    { class: "game-row tournament-row", dataset: { tournament: s.id, status: s.status, kind: s.kind } },
    h(
      "div",
      { class: "game-row-body" },
      h("a", { class: "tournament-name", href: tournamentHref(s.id) }, tournamentName(s)),
      h("span", { class: "muted" }, kindLine(s)),
      h("span", { class: "muted" }, playersWords(s.players)),
      s.status === "running" && roundWords(s) ? h("span", {}, roundWords(s)) : null,
      when,
    ),
    h("div", { class: "game-row-actions" }, h("a", { class: ["btn", "btn-small", s.status !== "finished" && "btn-primary"], href: tournamentHref(s.id), dataset: { key: "open" } }, s.status === "finished" ? t("Results") : t("Open"))),
  );
}

/** "in 5 min", "at once": when a new tournament starts. */
function startWords(seconds) {
  if (!seconds) return t("At once");
  if (seconds % 3600 === 0) return tn("In {n} hour", "In {n} hours", seconds / 3600);
  return tn("In {n} minute", "In {n} minutes", seconds / 60);
}

/** The form that creates a tournament, or, for a guest, the way to log in first. */
function createPanel() {
  let kind = "arena";
  const name = h("input", { id: "tournament-name", name: "name", type: "text", maxlength: "40", placeholder: t("Optional: a name is made up") });
  const kinds = h("div", { class: "segmented", role: "radiogroup", "aria-labelledby": "tournament-kind-label" });
  const variant = h(
    "select",
    { id: "tournament-variant", name: "variant" },
    h("option", { value: "classic" }, t("Splendor (2 players)")),
    h("option", { value: "duel" }, t("Splendor Duel (2 players)")),
  );
  const clock = h("select", { id: "tournament-clock", name: "clock" }, CLOCKS.map(([value, label]) => h("option", { value, selected: value === "3+2" }, label)));
  const duration = h(
    "select",
    { id: "tournament-duration", name: "duration" },
    DURATIONS.map((n) => h("option", { value: String(n), selected: n === DEFAULT_DURATION }, tn("{n} minute", "{n} minutes", n))),
  );
  const rounds = h("select", { id: "tournament-rounds", name: "rounds" }, ROUNDS.map((n) => h("option", { value: String(n), selected: n === DEFAULT_ROUNDS }, tn("{n} round", "{n} rounds", n))));
  const starts = h("select", { id: "tournament-start", name: "start" }, STARTS.map((n) => h("option", { value: String(n), selected: n === DEFAULT_START }, startWords(n))));
  const durationField = h("div", { class: "field", id: "duration-field" }, h("label", { for: "tournament-duration" }, t("Duration")), duration);
  const roundsField = h("div", { class: "field", id: "rounds-field", hidden: true }, h("label", { for: "tournament-rounds" }, t("Rounds")), rounds);
  const kindHint = h("p", { class: "hint", id: "tournament-kind-hint" });
  const error = h("p", { class: "form-error", role: "alert", id: "create-tournament-error" });
  const submit = h("button", { type: "submit", class: "btn btn-primary btn-wide", id: "create-tournament" }, t("Create the tournament"));

  const drawKinds = () => {
    const focused = kinds.contains(document.activeElement) ? document.activeElement.id : "";
    mount(
      kinds,
      [
        ["arena", tp("tournament", "Arena")],
        ["swiss", tp("tournament", "Swiss")],
      ].map(([value, label]) =>
        h(
          "label",
          { class: ["segment", value === kind && "checked"] },
          h("input", {
            type: "radio",
            id: `kind-${value}`,
            name: "kind",
            value,
            checked: value === kind,
            onchange: () => {
              kind = value;
              drawKinds();
            },
          }),
          label,
        ),
      ),
    );
    durationField.hidden = kind !== "arena";
    roundsField.hidden = kind !== "swiss";
    kindHint.textContent =
      kind === "arena"
        ? t("Play as many games as you can until the time is up: a win scores 2, a shared victory 1, and from the third win in a row each win scores double.")
        : t("Every round pairs players of equal points who have not met yet; an odd player out gets a bye, worth a win.");
    if (focused) document.getElementById(focused)?.focus();
  };
  drawKinds();

  const form = h(
    "form",
    {
      class: "new-game new-tournament",
      id: "new-tournament",
      onsubmit: async (e) => {
        e.preventDefault();
        error.textContent = "";
        const preset = CLOCKS.find(([value]) => value === clock.value);
        const body = { kind, variant: variant.value, clock: preset[2], starts_in_s: Number(starts.value) };
        if (kind === "arena") body.duration_min = Number(duration.value);
        else body.rounds = Number(rounds.value);
        if (name.value.trim()) body.name = name.value.trim();
        submit.disabled = true;
        try {
          const made = await createTournament(body);
          window.location.hash = tournamentHref(made.tournament.id);
        } catch (err) {
          error.textContent = tournamentRefusal(err);
          submit.disabled = false;
        }
      },
    },
    h("div", { class: "field" }, h("label", { for: "tournament-name" }, t("Name")), name),
    h("div", { class: "field" }, h("span", { class: "field-label", id: "tournament-kind-label" }, t("Kind")), kinds, kindHint),
    h("div", { class: "field" }, h("label", { for: "tournament-variant" }, t("Game")), variant),
    h("div", { class: "field" }, h("label", { for: "tournament-clock" }, t("Time")), clock),
    durationField,
    roundsField,
    h("div", { class: "field" }, h("label", { for: "tournament-start" }, t("Starts")), starts),
    h("p", { class: "hint" }, t("Every game is rated. You may have 2 tournaments of your own planned or running at once.")),
    submit,
    error,
  );
  const guest = h(
    "div",
    { id: "create-log-in" },
    h("p", { class: "muted" }, t("Log in to create a tournament or to join one.")),
    h("button", { type: "button", class: "btn btn-primary", onclick: () => askToLogIn("login") }, t("Log in")),
  );
  const panel = h("section", { class: "panel", "aria-labelledby": "create-title", id: "create-panel" }, h("h2", { id: "create-title", class: "panel-title" }, t("Create a tournament")), form, guest);
  const showAccount = () => {
    const account = accountName();
    form.hidden = !account;
    guest.hidden = Boolean(account);
  };
  showAccount();
  return { panel, showAccount };
}

/** The lobby's panel: the tournaments running or about to start (three at most, asked
 * once), and the way to all of them. */
export function lobbyTournaments() {
  const list = h("div", { class: "game-list", id: "lobby-tournaments" });
  const panel = h(
    "section",
    { class: "panel", "aria-labelledby": "lobby-tournaments-title" },
    h("h2", { id: "lobby-tournaments-title", class: "panel-title" }, t("Tournaments")),
    list,
    h("p", { class: "panel-more" }, h("a", { href: "#/tournaments", id: "all-tournaments" }, t("All tournaments, and create one"))),
  );
  listTournaments().then(
    (all) => {
      const soon = [...(all.running || []), ...(all.upcoming || [])].slice(0, 3);
      mount(list, soon.length ? soon.map(row) : h("p", { class: "empty" }, t("No tournament is running right now.")));
    },
    () => mount(list),
  );
  const ticker = window.setInterval(() => (panel.isConnected ? tickCountdowns(panel) : window.clearInterval(ticker)), 1000);
  return panel;
}
