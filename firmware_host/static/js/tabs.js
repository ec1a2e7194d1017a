// The tabs: one screen shown at a time. The screen shown is in the store (`state.tab`, topic
// "tab"): each screen loads what it needs when it is shown, so this module knows none.
import { $$ } from "./dom.js";
import { publish, state } from "./store.js";

export function showTab(name) {
  for (const b of $$(".tabs button")) b.setAttribute("aria-selected", String(b.dataset.tab === name));
  for (const s of $$(".tab")) s.hidden = s.id !== `tab-${name}`;
  state.tab = name;
  publish("tab");
}

// The screen's controls, wired once the page has loaded.
export function mount() {
  for (const b of $$(".tabs button")) b.addEventListener("click", () => showTab(b.dataset.tab));
}
