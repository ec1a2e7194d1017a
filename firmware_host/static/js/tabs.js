// The tabs: one screen shown at a time.
import { $$ } from "./dom.js";
import { renderBoard } from "../screens/board.js";
import { loadHistory } from "../screens/history.js";
import { loadSettings } from "../screens/settings.js";
import { loadPlans } from "../screens/shuffle.js";

export function showTab(name) {
  for (const b of $$(".tabs button")) b.setAttribute("aria-selected", String(b.dataset.tab === name));
  for (const s of $$(".tab")) s.hidden = s.id !== `tab-${name}`;
  if (name === "history") loadHistory();
  if (name === "settings") loadSettings();
  if (name === "shuffle") loadPlans();
  if (name === "board") renderBoard();
}

// The screen's controls, wired once the page has loaded.
export function mount() {
  for (const b of $$(".tabs button")) b.addEventListener("click", () => showTab(b.dataset.tab));
}
