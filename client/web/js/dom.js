// A tiny element builder: the page never puts server text into innerHTML.

import { formatList } from "./i18n.js";

/**
 * h("button", {class: "x", onclick: fn, dataset: {card: "1-07"}, "aria-label": "…"}, child, …)
 * Children may be strings, nodes, arrays, or null/false (skipped).
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

export function setAttrs(el, attrs) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "dataset") {
      for (const [k, v] of Object.entries(value)) {
        if (v !== null && v !== undefined) el.dataset[k] = typeof v === "string" ? v : JSON.stringify(v);
      }
    } else if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2), value);
    } else if (key === "class") {
      el.className = Array.isArray(value) ? value.filter(Boolean).join(" ") : value;
    } else if (key === "style" && typeof value === "object") {
      for (const [prop, v] of Object.entries(value)) el.style.setProperty(prop, v);
    } else if (value === true) {
      el.setAttribute(key, "");
    } else {
      el.setAttribute(key, String(value));
    }
  }
}

export function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** An SVG element from a trusted constant string of inner markup. */
export function svg(viewBox, inner, attrs = {}) {
  const el = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  el.setAttribute("viewBox", viewBox);
  el.setAttribute("aria-hidden", "true");
  el.setAttribute("focusable", "false");
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  el.innerHTML = inner;
  return el;
}

/** An SVG element built from attributes (and text), for graphs drawn from data. */
export function svgElement(tag, attrs = {}, text) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

/** Replace the children of `el`. */
export function mount(el, ...children) {
  el.replaceChildren();
  return append(el, children);
}

/** "a", "a and b", "a, b and c", in the page's language. */
export function listWords(parts) {
  return formatList(parts);
}

/**
 * Close a menu made of a <details> when its reader is done with it: a click or a
 * tap outside it, Escape (focus goes back to its summary when it was inside), and
 * a change of page (the hash). Listens on the document until the menu is taken
 * out of the document (the top bar draws its menu again when the account changes).
 */
export function dismissable(details) {
  const close = (refocus) => {
    if (!details.open) return;
    const inside = details.contains(document.activeElement);
    details.open = false;
    if (refocus && inside) details.querySelector("summary").focus();
  };
  const listeners = [
    [document, "pointerdown", (e) => !details.contains(e.target) && close(false)],
    [document, "keydown", (e) => e.key === "Escape" && close(true)],
    [window, "hashchange", () => close(false)],
  ];
  for (const [target, type, fn] of listeners) {
    target.addEventListener(type, function listener(e) {
      if (!details.isConnected) target.removeEventListener(type, listener);
      else fn(e);
    });
  }
  return details;
}
