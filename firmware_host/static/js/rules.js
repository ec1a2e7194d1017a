// The engine's rules (GET /api/rules): the page works out no rule of its own.
import { api } from "./net.js";
import { publish, state } from "./store.js";

// Every rule the page shows (players, hand sizes, targets, skunk lines, possible counts)
// comes from the daemon's GET /api/rules (the engine's catalogue) or the game's own view.
// Where a figure is missing the page shows nothing rather than a guess of its own.
export async function loadRules() {
  try { state.rules.catalogue = await api("GET", "/api/rules"); state.rules.error = ""; } catch (err) { state.rules.catalogue = null; state.rules.error = err.message; }
  publish("rules");
}
export function variantRules(name) {
  const list = (state.rules.catalogue && state.rules.catalogue.variants) || [];
  return list.find((v) => v.name === name) || null;
}
export function sidesOfVariant(v) {
  if (!v) return null;
  if (Array.isArray(v.sides)) return v.sides.length;
  if (Number.isInteger(v.sides)) return v.sides;
  return null; // the catalogue's to say: no count of our own
}
// Cards in a hand or crib of this variant, or null when the catalogue does not say.
export function cardsIn(variant, kind) {
  const v = variantRules(variant);
  if (!v) return null;
  if (kind === "crib") return v.crib_size ?? null;
  return v.hand_size ?? null;
}
export function dealtCards(variant) { const v = variantRules(variant); return v ? v.deal : null; }
// The totals a hand (or crib) of this variant can make, lowest first; null when not given.
export function possibleCounts(variant, kind) {
  const v = variantRules(variant);
  const counts = (v && v.counts) || (state.rules.catalogue && state.rules.catalogue.counts) || null;
  return counts && Array.isArray(counts[kind]) ? counts[kind] : null;
}
// The play's limit (the count never passes it): the game's own, else its variant's in the
// catalogue; null when neither says (then the page names no limit and the engine judges).
export const playLimit = (game) => (game && game.play && game.play.limit) ??
  (game && (variantRules(game.variant) || {}).play_limit) ?? null;
