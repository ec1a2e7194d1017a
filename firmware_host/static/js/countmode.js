// The Count tab's two modes (count a hand, which two to throw), used by both of its screens
// and by the Score screen that opens them: the mode is in the store (topic "countmode").
import { $ } from "./dom.js";
import { publish, state } from "./store.js";
import { showTab } from "./tabs.js";

/** The variant counted: the game's, else the six-card game (a free count). */
export function countVariant() { return state.game ? state.game.variant : "six-card"; }

export function setCountMode(mode) {
  state.countMode = mode;
  $("#mode-count").setAttribute("aria-pressed", String(mode === "count"));
  $("#mode-advise").setAttribute("aria-pressed", String(mode === "advise"));
  $("#count-panel").hidden = mode !== "count";
  $("#advise-panel").hidden = mode !== "advise";
  publish("countmode");
}
/** Open the Count tab in `mode`. */
export function openCountTab(mode) { showTab("count"); setCountMode(mode); }

/** The count due in a cards-mode game, on the Count tab, with what the page already knows
 * (the starter, the cards the player laid in the play, whether it is the crib). */
export function openDueCount() {
  const game = state.game;
  if (game && game.next_count) {
    const next = game.next_count;
    state.count.due = next.label;
    state.count.starter = game.starter || null;
    state.count.hand = next.kind === "hand" ? ((game.play && game.play.played) || []).filter((p) => p.player === next.player).map((p) => p.card) : [];
    state.count.crib = next.kind === "crib";
    state.count.target = "hand";
    state.count.result = null;
    state.count.opened = (state.count.opened || 0) + 1;
  }
  openCountTab("count");
}
