// The toast: what just happened, in the header beside the live line (never over it: whether
// the table is live is in sight whenever something happens), with an optional button (Undo).
// A tap on its words puts it away before its time.
import { $, el } from "./dom.js";

let toastTimer = 0;
export function toast(text, action, seconds = 4) {
  const t = $("#toast");
  t.replaceChildren(el("span", { class: "toast-words", text, onclick: () => { t.hidden = true; } }));
  if (action) t.append(el("button", { type: "button", class: "write", text: action.label, onclick: () => { t.hidden = true; action.run(); } }));
  // It ends where the live line begins, whatever that line says now.
  const link = $("#link");
  const left = link ? link.getBoundingClientRect().left : 0;
  if (left > 0) t.style.right = `${Math.max(8, document.documentElement.clientWidth - left + 6)}px`;
  t.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { t.hidden = true; }, seconds * 1000);
}
