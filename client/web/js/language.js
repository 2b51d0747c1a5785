// The language menu of the top bar (docs/web.md "Languages"): the six languages,
// each named in itself. Choosing one remembers it in the `lang` cookie (read by the
// server on every request) and, for a logged-in player, on the account (PUT
// /api/me/language), then loads the page again in it; a `?lang=` in the address
// gives way to the choice.

import { accountName } from "./account.js";
import { saveLanguage } from "./api.js";
import { dismissable, h, svg } from "./dom.js";
import { LANGUAGES, lang, t } from "./i18n.js";

const YEAR_SECONDS = 365 * 24 * 3600;
const GLOBE =
  '<circle cx="8" cy="8" r="6.5" fill="none"/><path d="M1.5 8h13M8 1.5c-2.2 2.2-2.2 10.8 0 13M8 1.5c2.2 2.2 2.2 10.8 0 13" fill="none"/>';

/** Remember `code` and show the page in it. */
export async function chooseLanguage(code) {
  document.cookie = `lang=${encodeURIComponent(code)}; Max-Age=${YEAR_SECONDS}; Path=/; SameSite=Lax`;
  if (accountName()) {
    try {
      await saveLanguage(code);
    } catch {
      // An older server without the account's language, or none reachable: the cookie is enough here.
    }
  }
  const url = new URL(window.location.href);
  url.searchParams.delete("lang");
  if (url.href === window.location.href) window.location.reload();
  else window.location.replace(url.href);
}

/** The menu, put in the top bar before the account's part. */
export function mountLanguageMenu(topbar) {
  const current = LANGUAGES.find(([code]) => code === lang);
  const menu = h(
    "details",
    { class: "lang-menu", id: "language-menu" },
    h(
      "summary",
      { class: "btn btn-small btn-quiet", id: "language-open", "aria-label": t("Language: {language}", { language: current ? current[1] : lang }), title: t("Language") },
      svg("0 0 16 16", GLOBE, { class: "lang-icon" }),
      h("span", { class: "lang-code" }, lang.split("-")[0].toUpperCase()),
    ),
    h(
      "ul",
      { class: "lang-list", "aria-label": t("Language") },
      LANGUAGES.map(([code, name]) =>
        h(
          "li",
          {},
          h(
            "button",
            { type: "button", class: "btn btn-small btn-quiet", lang: code, dataset: { lang: code }, "aria-current": code === lang ? "true" : null, onclick: () => chooseLanguage(code) },
            name,
          ),
        ),
      ),
    ),
  );
  topbar.insertBefore(dismissable(menu), topbar.querySelector("#account-bar"));
  return menu;
}
