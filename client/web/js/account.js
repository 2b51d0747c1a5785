// The account in the top bar (docs/accounts.md): sign up, log in, log out here or
// everywhere. Accounts are optional: a guest plays as before. The session is an
// HttpOnly cookie the page never sees; who is logged in comes from GET /api/me.

import {
  ApiError,
  fetchEmail,
  fetchMe,
  logIn,
  logOut,
  logOutEverywhere,
  removeEmail,
  resendEmailLink,
  saveEmail,
  saveEmailNotify,
  signUp,
} from "./api.js";
import { dismissable, h, mount } from "./dom.js";
import { t } from "./i18n.js";

const USERNAME = "[A-Za-z0-9_\\-]{3,20}";

let current = null; // {username, ratings} or null (a guest)
let dialog = null; // the log-in / sign-up dialog, once the top bar is mounted
let emailDialog = null; // the e-mail address dialog (docs/email.md), likewise
let known = null; // the first GET /api/me, once
const listeners = new Set();

/** The logged-in account's username, or null (a guest, or not known yet). */
export function accountName() {
  return current ? current.username : null;
}

/** Whether this browser was given a session: the server sets the readable cookie
 * `splendor_account` beside the HttpOnly session cookie. A guest's page never asks. */
function sessionHinted() {
  return document.cookie.split(";").some((c) => c.trim().startsWith("splendor_account="));
}

/** GET /api/me when a session is hinted; a session that ended clears the hint. */
async function whoAmI() {
  if (!sessionHinted()) return null;
  const me = await fetchMe();
  if (!me) document.cookie = "splendor_account=; Max-Age=0; Path=/; SameSite=Lax";
  return me;
}

/** Resolves once the page knows whether it is logged in (the username or null). */
export async function whenAccountKnown() {
  if (!known) {
    known = whoAmI().then(setAccount, () => {
      // Not known (the network, a 503): a guest for now, and asked again next time,
      // so that one failed look does not make a logged-in page a guest's for good.
      known = null;
      setAccount(null);
    });
  }
  await known;
  return accountName();
}

/** Ask the server again who is logged in (the session may have ended elsewhere:
 * "log out everywhere"); the username or null. */
export async function checkAccount() {
  await whenAccountKnown();
  setAccount(await whoAmI().catch(() => null));
  return accountName();
}

/** Call `fn(username | null)` whenever the page logs in or out; returns the undo. */
export function onAccountChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

function setAccount(me) {
  const before = accountName();
  current = me;
  if (accountName() !== before) for (const fn of [...listeners]) fn(accountName());
}

/** Open the top bar's dialog to log in (`which` "login") or sign up ("signup"). */
export function askToLogIn(which = "login") {
  if (dialog) dialog.open(which);
}

/** The top bar's account part: "Log in" and "Sign up", or the account's menu. */
export function mountAccountBar(topbar) {
  const bar = h("div", { class: "account-bar", id: "account-bar" });
  dialog = accountDialog();
  emailDialog = addressDialog();
  topbar.append(bar, dialog.element, emailDialog.element);
  const draw = () => {
    const name = accountName();
    if (!name) {
      mount(
        bar,
        h("button", { type: "button", class: "btn btn-small", id: "login-open", onclick: () => dialog.open("login") }, t("Log in")),
        h("button", { type: "button", class: "btn btn-small btn-primary", id: "signup-open", onclick: () => dialog.open("signup") }, t("Sign up")),
      );
      return;
    }
    // Shown only when the server sends e-mail (GET /api/me/email answers).
    const emailItem = h("button", { type: "button", class: "btn btn-small btn-quiet", id: "email-open", hidden: true, onclick: () => { menu.open = false; emailDialog.open(); } }, t("E-mail"));
    fetchEmail().then((found) => { emailItem.hidden = !found; }, () => {});
    const menu = h(
      "details",
      { class: "account-menu", id: "account-menu" },
      h("summary", { class: "btn btn-small", id: "account-name", "aria-label": t("Account {name}", { name }) }, svgPerson(), h("span", {}, name)),
      h(
        "div",
        { class: "account-menu-list" },
        h("a", { class: "btn btn-small btn-quiet", href: `#/player/${encodeURIComponent(name)}`, onclick: () => (menu.open = false) }, t("Your profile")),
        emailItem,
        h("button", { type: "button", class: "btn btn-small btn-quiet", id: "logout", onclick: () => leave(logOut) }, t("Log out")),
        h("button", { type: "button", class: "btn btn-small btn-quiet", id: "logout-everywhere", onclick: () => leave(logOutEverywhere) }, t("Log out everywhere")),
      ),
    );
    mount(bar, dismissable(menu));
  };
  const leave = async (how) => {
    try {
      await how();
    } catch {
      // Logged out already (401), or the server can't be reached: ask it again below.
    }
    setAccount(await whoAmI().catch(() => null));
    const first = document.getElementById("login-open");
    if (first) first.focus();
  };
  onAccountChange(draw);
  draw();
  whenAccountKnown();
}

function svgPerson() {
  const el = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  el.setAttribute("viewBox", "0 0 16 16");
  el.setAttribute("aria-hidden", "true");
  el.setAttribute("class", "account-icon");
  el.innerHTML = '<circle cx="8" cy="5" r="3"/><path d="M2 15c0-3.3 2.7-5.5 6-5.5s6 2.2 6 5.5z"/>';
  return el;
}

/** The dialog of the account's e-mail address (docs/email.md): add or replace it, see
 * whether it is verified, send the link again, turn the e-mails of games on or off,
 * remove it. The address is the player's own: no other page shows it. */
function addressDialog() {
  let record = null; // {address, verified, notify}
  const title = h("h2", { class: "dialog-title", id: "email-title" }, t("E-mail"));
  const address = h("input", { id: "email-address", name: "email", type: "email", required: true, maxlength: "254", autocomplete: "email", spellcheck: "false" });
  const state = h("p", { class: "hint", id: "email-state", "aria-live": "polite" });
  const notify = h("input", { type: "checkbox", id: "email-notify", name: "notify", onchange: () => act(() => saveEmailNotify(notify.checked)) });
  const notifyField = h("div", { class: "field rated-field", id: "email-notify-field" }, notify, h("label", { for: "email-notify" }, t("E-mail me when it is my move")));
  const error = h("p", { class: "form-error", role: "alert", id: "email-error" });
  const save = h("button", { type: "submit", class: "btn btn-primary", id: "email-save" }, t("Save"));
  const resend = h("button", { type: "button", class: "btn", id: "email-resend", onclick: () => act(resendEmailLink, t("A new link is on its way.")) }, t("Send the link again"));
  const remove = h("button", { type: "button", class: "btn btn-quiet", id: "email-remove", onclick: () => act(async () => { await removeEmail(); address.value = ""; }) }, t("Remove the address"));
  const close = h("button", { type: "button", class: "btn", onclick: () => element.close() }, t("Close"));
  const form = h(
    "form",
    { onsubmit: (e) => { e.preventDefault(); act(() => saveEmail(address.value.trim()), t("Check your inbox: follow the link we sent to verify the address.")); } },
    title,
    h("p", { class: "hint" }, t("We e-mail you when it is your move in a game of days a move, and when a tournament you joined starts. Nobody else sees the address.")),
    h("div", { class: "field" }, h("label", { for: "email-address" }, t("E-mail address")), address),
    state,
    notifyField,
    error,
    h("div", { class: "dialog-actions" }, remove, resend, close, save),
  );
  const element = h("dialog", { class: "dialog account-dialog", id: "email-dialog", "aria-labelledby": "email-title" }, form);

  const draw = (said = "") => {
    const has = Boolean(record && record.address);
    if (has && document.activeElement !== address) address.value = record.address;
    state.textContent = said || (!has ? t("No address yet.") : record.verified ? t("Verified.") : t("Not verified yet: follow the link we sent."));
    state.dataset.verified = has && record.verified ? "yes" : "no";
    notify.checked = Boolean(record && record.notify);
    notifyField.hidden = !has;
    resend.hidden = !has || record.verified;
    remove.hidden = !has;
  };

  const act = async (how, said = "") => {
    error.textContent = "";
    try {
      await how();
      record = await fetchEmail();
      draw(said);
    } catch (err) {
      error.textContent = err instanceof ApiError ? err.message : String(err);
      record = await fetchEmail().catch(() => record);
      draw();
    }
  };

  return {
    element,
    async open() {
      error.textContent = "";
      record = await fetchEmail().catch(() => null);
      address.value = record && record.address ? record.address : "";
      draw();
      if (!element.open) element.showModal();
      address.focus();
    },
  };
}

/** The dialog of logging in and signing up (one form, two modes). */
function accountDialog() {
  let mode = "login";
  const title = h("h2", { class: "dialog-title", id: "account-title" });
  const username = h("input", { id: "account-username", name: "username", type: "text", required: true, minlength: "3", maxlength: "20", pattern: USERNAME, autocomplete: "username", autocapitalize: "none", spellcheck: "false" });
  const password = h("input", { id: "account-password", name: "password", type: "password", required: true, maxlength: "256" });
  const hint = h("p", { class: "hint", id: "account-hint" });
  const error = h("p", { class: "form-error", role: "alert", id: "account-error" });
  const submit = h("button", { type: "submit", class: "btn btn-primary", id: "account-submit" });
  const other = h("button", { type: "button", class: "btn btn-quiet", id: "account-switch", onclick: () => setMode(mode === "login" ? "signup" : "login") });
  const cancel = h("button", { type: "button", class: "btn", onclick: () => element.close() }, t("Cancel"));
  const form = h(
    "form",
    { onsubmit: (e) => send(e) },
    title,
    h("div", { class: "field" }, h("label", { for: "account-username" }, t("Username")), username),
    h("div", { class: "field" }, h("label", { for: "account-password" }, t("Password")), password),
    hint,
    error,
    h("div", { class: "dialog-actions" }, other, cancel, submit),
  );
  const element = h("dialog", { class: "dialog account-dialog", id: "account-dialog", "aria-labelledby": "account-title" }, form);

  const setMode = (next) => {
    mode = next;
    const signing = mode === "signup";
    title.textContent = signing ? t("Sign up") : t("Log in");
    submit.textContent = signing ? t("Sign up") : t("Log in");
    other.textContent = signing ? t("I have an account") : t("New here? Sign up");
    password.setAttribute("autocomplete", signing ? "new-password" : "current-password");
    password.setAttribute("minlength", signing ? "8" : "1");
    hint.textContent = signing
      ? t("3 to 20 letters, digits, _ or -; a password of 8 characters or more. Guests can still play without an account.")
      : "";
    error.textContent = "";
  };

  const send = async (e) => {
    e.preventDefault();
    error.textContent = "";
    submit.disabled = true;
    try {
      const act = mode === "signup" ? signUp : logIn;
      await act(username.value.trim(), password.value);
      password.value = "";
      setAccount(await whoAmI());
      element.close();
    } catch (err) {
      error.textContent = err instanceof ApiError ? err.message : String(err);
      password.select();
    } finally {
      submit.disabled = false;
    }
  };

  return {
    element,
    open(which) {
      setMode(which);
      password.value = "";
      if (!element.open) element.showModal();
      username.focus();
    },
  };
}
