// The page's router. The server serves only "/", so every page is a hash route:
//   #/                lobby
//   #/join/{id}       take a seat in an open game
//   #/play/{id}       the table, acting for this browser's seat
//   #/watch/{id}      the table as a spectator
//   #/replay/{id}[/N] the replay of a game, at move N
//   #/seat/{id}?token=…  a seat's link for another device (device.js)
//   #/player/{username}  a player's profile (profile.js)
//   #/leaderboard/{variant}  the best players of a variant (leaderboard.js)
//   #/howto/{variant}[/{section}]  how to play a game, at a section (howto.js)
//   #/tournaments      the tournaments, and creating one (tournaments.js)
//   #/tournament/{id}  a tournament: standings, your game, games to watch (tournament.js)

import { mountAccountBar } from "./account.js";
import { showSeatLink } from "./device.js";
import { mount } from "./dom.js";
import { showGame } from "./game.js";
import { showHowto } from "./howto.js";
import { loadCatalog, t, tp } from "./i18n.js";
import { showJoin } from "./join.js";
import { mountLanguageMenu } from "./language.js";
import { showLeaderboard } from "./leaderboard.js";
import { showLobby } from "./lobby.js";
import { showProfile } from "./profile.js";
import { showReplay } from "./replay.js";
import { showTournament } from "./tournament.js";
import { showTournaments } from "./tournaments.js";
import { variantName } from "./words.js";

// Each route: its pattern, its page, its name (data-page, in English), its title, and
// (optionally) how the title writes the address's part.
const ROUTES = [
  [/^#?\/?$/, (main) => showLobby(main), "Lobby", () => tp("page", "Lobby")],
  [/^#\/join\/([^/]+)\/?$/, (main, id) => showJoin(main, id), "Join", () => tp("page", "Join")],
  [/^#\/play\/([^/]+)\/?$/, (main, id) => showGame(main, id, "play"), "Table", () => tp("page", "Table")],
  [/^#\/watch\/([^/]+)\/?$/, (main, id) => showGame(main, id, "watch"), "Watching", () => tp("page", "Watching")],
  [/^#\/replay\/([^/]+)(?:\/(\d+))?\/?$/, (main, id, n) => showReplay(main, id, n ? Number(n) : undefined), "Replay", () => tp("page", "Replay")],
  [/^#\/seat\/([^/?]+)(?:\?.*)?$/, (main, id) => showSeatLink(main, id), "Seat", () => tp("page", "Seat")],
  [/^#\/player\/([^/]+)\/?$/, (main, name) => showProfile(main, name), "Player", () => tp("page", "Player")],
  [/^#\/leaderboard(?:\/(classic|duel))?\/?$/, (main, variant) => showLeaderboard(main, variant || "classic"), "Leaderboard", () => tp("page", "Leaderboard"), variantName],
  [/^#\/tournaments\/?$/, (main) => showTournaments(main), "Tournaments", () => tp("page", "Tournaments")],
  [/^#\/tournament\/([^/]+)\/?$/, (main, id) => showTournament(main, id), "Tournament", () => tp("page", "Tournament")],
  [/^#\/howto\/(classic|duel)(?:\/([a-z0-9_-]+))?\/?$/, (main, variant, section) => showHowto(main, variant, section), "How to play", () => tp("page", "How to play"), variantName],
];

let cleanup = () => {};
let generation = 0;
let lastPage = null;

async function route() {
  const hash = window.location.hash || "#/";
  const match = ROUTES.map(([re, show, title, words, part]) => [hash.match(re), show, title, words, part]).find(([m]) => m);
  const [m, show, title, words, nameOf = (x) => x] = match || [null, null, "Not found", () => tp("page", "Not found")];
  const page = m ? `${title}:${m[1] || ""}` : "missing";
  // The replay rewrites its own address as it steps: that is not a new page.
  if (page === lastPage && title === "Replay") return;
  lastPage = page;
  generation += 1;
  const mine = generation;
  cleanup();
  cleanup = () => {};
  // Each page draws into a <main> of its own: a page still loading when another
  // route began (a slow fetch) may draw once its fetch returns, and must draw into
  // the element it was given, now out of the document, never over the new page.
  const old = document.getElementById("main");
  const main = old.cloneNode(false);
  const hadFocus = old.contains(document.activeElement);
  old.replaceWith(main);
  if (hadFocus) main.focus({ preventScroll: true });
  document.body.dataset.page = title.toLowerCase();
  document.title = m && m[1]
    ? t("{page} {name} · Splendor Live", { page: words(), name: nameOf(decodeURIComponent(m[1])) })
    : t("{page} · Splendor Live", { page: words() });
  if (!m) {
    mount(main, Object.assign(document.createElement("p"), { className: "notice", textContent: t("This page does not exist.") }));
    return;
  }
  const args = m.slice(1).map((part) => (part === undefined ? undefined : decodeURIComponent(part)));
  const done = await show(main, ...args);
  if (mine !== generation) {
    // Another route started meanwhile: this page is already gone.
    if (typeof done === "function") done();
    return;
  }
  cleanup = typeof done === "function" ? done : () => {};
}

window.addEventListener("hashchange", () => {
  route().then(() => {
    // Screen readers and keyboards start at the new page, unless it focused a field.
    if (!document.activeElement || document.activeElement === document.body) {
      document.getElementById("main").focus({ preventScroll: true });
    }
  });
});
/** The words of index.html's frame (the top bar), in the page's language. */
function translateFrame() {
  const text = (selector, words) => {
    const el = document.querySelector(selector);
    if (el) el.textContent = words;
  };
  text(".skip-link", t("Skip to content"));
  text(".brand span", t("Splendor Live"));
  document.querySelector(".brand").setAttribute("aria-label", t("Splendor Live, back to the lobby"));
  document.querySelector(".topnav").setAttribute("aria-label", t("Site"));
  text('.topnav a[href="#/"]', t("Lobby"));
  text('.topnav a[href^="#/leaderboard"]', t("Leaderboard"));
  text('.topnav a[href="#/tournaments"]', t("Tournaments"));
  text("main > .loading", t("Loading…"));
}

await loadCatalog();
translateFrame();
mountAccountBar(document.querySelector(".topbar"));
mountLanguageMenu(document.querySelector(".topbar"));
route();
