// The toast: one line at the top, with an optional button (Undo, Apply now).
import { $, el } from "./dom.js";

export let toastTimer = 0;
export function toast(text, action, seconds = 4) {
  const t = $("#toast");
  t.replaceChildren(el("span", { text }));
  if (action) t.append(el("button", { type: "button", class: "write", text: action.label, onclick: () => { t.hidden = true; action.run(); } }));
  t.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { t.hidden = true; }, seconds * 1000);
}

export const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1); // a toast is a sentence
