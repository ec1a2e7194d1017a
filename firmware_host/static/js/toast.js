// The toast: what just happened, in a strip over the tab bar (never over the header, whose
// line says whether the table is live), with an optional button (Undo). A tap on its words
// puts it away before its time.
import { $, el } from "./dom.js";

export let toastTimer = 0;
export function toast(text, action, seconds = 4) {
  const t = $("#toast");
  t.replaceChildren(el("span", { class: "toast-words", text, onclick: () => { t.hidden = true; } }));
  if (action) t.append(el("button", { type: "button", class: "write", text: action.label, onclick: () => { t.hidden = true; action.run(); } }));
  t.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { t.hidden = true; }, seconds * 1000);
}

export const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1); // a toast is a sentence
