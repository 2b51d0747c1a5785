// The page's words in the reader's language (issue 24, docs/web.md "Languages").
//
// Every sentence the page shows goes through t, tn, tp or tnp with an English
// message id; `python -m catalogs.tool extract` reads those calls (their string
// literals only: a message id is never built at run time) into catalogs/page.pot,
// and the server serves each language's compiled catalog as GET /i18n/{lang}.json.
// A message the catalog lacks (or a catalog that can't be fetched) shows in English,
// so the page always works. Placeholders are `{name}`, filled from an args object;
// numbers in them are written with the language's digits (Intl).
//
// Game things have message contexts so each language names them as its printed
// rulebook does: tp("token", "red") is the colour of a token or card, tp("gem",
// "ruby") a gem's name, tp("term", "noble") a term of the rules used on its own.
//
// The catalog is loaded once, before any module that imports this one runs (a
// top-level await): words computed when a module loads are in the reader's language.

/** The languages of the menu, each named in itself; `en` is the source language. */
export const LANGUAGES = [
  ["en", "English"],
  ["es", "Español"],
  ["pl", "Polski"],
  ["el", "Ελληνικά"],
  ["is", "Íslenska"],
  ["fa", "فارسی"],
];
/** The pseudo-locale: every translated string accented and bracketed, to see
 * what escaped translation (`?lang=en-XA`; not in the menu). */
export const PSEUDO = "en-XA";
const RTL = new Set(["fa", "ar", "he", "ur"]);
const CATALOG_WAIT_MS = 5000;
const CONTEXT_SEPARATOR = "\u0004";

function known(code) {
  return code === PSEUDO || LANGUAGES.some(([c]) => c === code);
}

function cookieLanguage() {
  const entry = document.cookie.split(";").map((c) => c.trim()).find((c) => c.startsWith("lang="));
  return entry ? decodeURIComponent(entry.slice("lang=".length)) : "";
}

/** The page's language, negotiated as the server does (docs/web.md "Languages"):
 * `?lang=` in the address, then the `lang` cookie, then what the server wrote into
 * `<html lang>` (the account's language or Accept-Language), then English. */
function chooseLanguage() {
  const asked = new URLSearchParams(window.location.search).get("lang") || "";
  for (const code of [asked, cookieLanguage(), document.documentElement.lang]) if (known(code)) return code;
  return "en";
}

/** The reader's language code ("en", "fa", "en-XA"). */
export const lang = chooseLanguage();
/** The writing direction of the page: "ltr" or "rtl". */
export let dir = RTL.has(lang) ? "rtl" : document.documentElement.getAttribute("dir") || "ltr";

let messages = {};
let categories = null; // CLDR plural categories in the order of the catalog's plural forms
let loading = null;

const plurals = new Intl.PluralRules(lang);
const englishPlurals = new Intl.PluralRules("en");

/** Fetch the catalog of `lang` once (English needs none: its messages are the ids);
 * any failure leaves the page in English. */
export function loadCatalog() {
  loading ||= (async () => {
    if (lang === "en") return;
    const abort = new AbortController();
    const timer = window.setTimeout(() => abort.abort(), CATALOG_WAIT_MS);
    try {
      const response = await fetch(`/i18n/${encodeURIComponent(lang)}.json`, { headers: { Accept: "application/json" }, signal: abort.signal });
      if (!response.ok) return;
      const catalog = await response.json();
      messages = catalog.messages || {};
      categories = Array.isArray(catalog.plural_categories) ? catalog.plural_categories : null;
      if (catalog.dir === "rtl" || catalog.dir === "ltr") dir = catalog.dir;
    } catch {
      // No catalog (the server has none, or can't be reached): the page stays in English.
    } finally {
      window.clearTimeout(timer);
    }
  })().finally(() => {
    document.documentElement.lang = lang;
    document.documentElement.dir = dir;
  });
  return loading;
}

await loadCatalog();

// ---------------------------------------------------------------- numbers, times, lists

const numbers = new Intl.NumberFormat(lang, { useGrouping: false, maximumFractionDigits: 2 });
const twoDigits = new Intl.NumberFormat(lang, { useGrouping: false, minimumIntegerDigits: 2 });
const tenths = new Intl.NumberFormat(lang, { useGrouping: false, minimumIntegerDigits: 2, minimumFractionDigits: 1, maximumFractionDigits: 1 });
const percents = new Intl.NumberFormat(lang, { style: "percent", maximumFractionDigits: 0 });
const days = new Intl.NumberFormat(lang, { style: "unit", unit: "day", unitDisplay: "narrow" });
const hours = new Intl.NumberFormat(lang, { style: "unit", unit: "hour", unitDisplay: "narrow" });
// English lists are written without the serial comma ("a, b and c"), as the page always did.
const listLocale = lang === "en" || lang === PSEUDO ? "en-GB" : lang;
const dateLocale = lang === PSEUDO ? "en" : lang;
// A browser may lack a language's locale data (Debian's Chromium has no Icelandic):
// Intl would then write English lists and dates, so those are made from the catalog.
const listsKnown = Intl.ListFormat.supportedLocalesOf([listLocale]).length > 0;
const datesKnown = Intl.DateTimeFormat.supportedLocalesOf([dateLocale]).length > 0;
const lists = listsKnown ? new Intl.ListFormat(listLocale, { type: "conjunction" }) : null;
const units = listsKnown ? new Intl.ListFormat(listLocale, { type: "unit", style: "short" }) : null;
const dates = datesKnown ? new Intl.DateTimeFormat(dateLocale) : null;
const dateTimes = datesKnown ? new Intl.DateTimeFormat(dateLocale, { year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric", second: "numeric" }) : null;

/** A number in the language's digits (no grouping: ratings read "1500"). */
export function formatNumber(n) {
  return numbers.format(n);
}

const signed = new Intl.NumberFormat(lang, { useGrouping: false, signDisplay: "exceptZero" });

/** A change with its sign: "+12", "−8" (a real minus sign, U+2212), "0". */
export function formatChange(n) {
  return signed.format(n).replace("-", "\u2212");
}

/** A share from 0 to 1 as a whole percentage: "45%", "۴۵٪". */
export function formatPercent(share) {
  return percents.format(share);
}

/** "a, b and c" in the language's words; with `units`, a plain list of what
 * something holds or gives ("2 points, 1 crown, another turn"). */
export function formatList(parts, { units: plain = false } = {}) {
  const words = parts.map(String);
  if (listsKnown) return (plain ? units : lists).format(words);
  return words.reduce((items, item, at) => {
    if (at === 0) return item;
    // Translators: a plain list of what something holds or gives, one more at its end ("2 points, 1 crown").
    if (plain) return tp("list", "{units}, {unit}", { units: items, unit: item });
    // Translators: a list ("a, b") and one more of it, not the last.
    if (at < words.length - 1) return tp("list", "{items}, {item}", { items, item });
    // Translators: a list ("a, b") and its last item ("a, b and c").
    return tp("list", "{items} and {item}", { items, item });
  }, "");
}

/** "0:42", "12:05": whole seconds as minutes and seconds. */
export function formatMinutes(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  return `${numbers.format(Math.floor(s / 60))}:${twoDigits.format(s % 60)}`;
}

/** A clock: "4:59", "0:09.4" under 10 s, "1:02:03" over an hour, "2d 3h" over a day. */
export function formatClock(ms) {
  const clamped = Math.max(0, ms);
  if (clamped < 10_000) return `${numbers.format(0)}:${tenths.format(Math.floor(clamped / 100) / 10)}`;
  const total = Math.floor(clamped / 1000);
  const d = Math.floor(total / 86400);
  const h = Math.floor((total % 86400) / 3600);
  const m = Math.floor((total % 3600) / 60);
  if (d) return `${days.format(d)} ${hours.format(h)}`;
  if (h) return `${numbers.format(h)}:${twoDigits.format(m)}:${twoDigits.format(total % 60)}`;
  return formatMinutes(total);
}

/** A day ("5/3/2025"), or with `time` the moment ("5/3/2025, 10:04:00 AM"). */
export function formatDate(date, { time = false } = {}) {
  const d = date instanceof Date ? date : new Date(date);
  if (datesKnown) return (time ? dateTimes : dates).format(d);
  const args = {
    year: numbers.format(d.getFullYear()),
    month: numbers.format(d.getMonth() + 1),
    day: numbers.format(d.getDate()),
    hour: numbers.format(d.getHours()),
    minute: twoDigits.format(d.getMinutes()),
    second: twoDigits.format(d.getSeconds()),
  };
  // Translators: the order and separators of a date written with numbers (3 May 2025).
  if (!time) return tp("date", "{month}/{day}/{year}", args);
  // Translators: a date and a time of day on the 24-hour clock (3 May 2025, 14:04:09).
  return tp("date", "{month}/{day}/{year}, {hour}:{minute}:{second}", args);
}

/** How long ago, from a gap in ms: "just now", "3 min ago", "2 hours ago", "4 days ago". */
export function formatRelative(ms) {
  const minutes = Math.round(ms / 60000);
  if (minutes < 1) return t("just now");
  if (minutes < 60) return tn("{n} min ago", "{n} min ago", minutes);
  const h = Math.round(minutes / 60);
  if (h < 48) return tn("{n} hour ago", "{n} hours ago", h);
  return tn("{n} day ago", "{n} days ago", Math.round(h / 24));
}

// ---------------------------------------------------------------- messages

// Unicode's FIRST STRONG ISOLATE and POP DIRECTIONAL ISOLATE: a value set between
// them takes its own direction and leaves the sentence's order alone.
const ISOLATE = "\u2068";
const POP_ISOLATE = "\u2069";

/** `text` with each `{name}` replaced by its value in `args`; on a right-to-left page
 * each value is isolated, so that a Latin name, an id, a time control ("3+2") or a
 * number keeps its own order inside the sentence instead of mixing with its words. */
function fill(text, args) {
  if (!args) return text;
  const isolated = dir === "rtl";
  return text.replace(/\{(\w+)\}/g, (whole, name) => {
    if (!Object.prototype.hasOwnProperty.call(args, name)) return whole;
    const value = args[name];
    const written = typeof value === "number" ? formatNumber(value) : String(value);
    return isolated ? `${ISOLATE}${written}${POP_ISOLATE}` : written;
  });
}

function pluralIndex(n) {
  if (!categories || !categories.length) return null;
  const at = categories.indexOf(plurals.select(n));
  return at < 0 ? categories.length - 1 : at;
}

function lookup(key, singular, plural, n, args) {
  const found = messages[key];
  let text;
  if (plural === undefined) {
    text = typeof found === "string" && found ? found : singular;
  } else {
    const index = Array.isArray(found) ? pluralIndex(n) : null;
    const form = index === null ? null : found[index];
    text = form || (englishPlurals.select(n) === "one" ? singular : plural);
  }
  return fill(text, plural === undefined ? args : { n, ...args });
}

/** A sentence: t("{name} resigned.", {name}). */
export function t(msgid, args) {
  return lookup(msgid, msgid, undefined, 0, args);
}

/** A sentence with a count: tn("{n} point", "{n} points", n, args); `{n}` is n. */
export function tn(singular, plural, n, args) {
  return lookup(singular, singular, plural, n, args);
}

/** A word or sentence in a context: tp("token", "red"), tp("term", "noble"). */
export function tp(context, msgid, args) {
  return lookup(`${context}${CONTEXT_SEPARATOR}${msgid}`, msgid, undefined, 0, args);
}

/** A sentence with a count, in a context: tnp("token", "{n} red", "{n} red", n). */
export function tnp(context, singular, plural, n, args) {
  return lookup(`${context}${CONTEXT_SEPARATOR}${singular}`, singular, plural, n, args);
}
