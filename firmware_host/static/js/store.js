// The page's one store: what the phone knows (the game, the board, the shuffler, the devices,
// the pairing) and each screen's own slice, with `subscribe` for the screens that show it.
// The network publishes here and the screens read from here: neither imports the other.
import { toast } from "./toast.js";

export const state = {
  token: localStorage.getItem("crib.token") || "",
  ownVersion: null,
  shufflerSeen: 0,
  tokenName: localStorage.getItem("crib.phone") || "",
  leftGameId: null,
  game: null,
  board: null,
  shuffler: null,
  devices: {},
  plans: {},
  lastUpdate: 0,
  live: false,
  polling: false, // every stream taken: the game read over HTTP meanwhile
  seq: 0,
  pending: false,
  spoken: [],
  // The taps sent and not yet answered: { words, waiting } (waiting: lost, sent again later).
  outbox: [],
  // Taps refused because another phone changed the game first, each kept with its
  // "Apply now" until the player answers it: { id, action, words }.
  conflicts: [],
  // The steps the stream brought (the game and its events), not yet shown and said.
  steps: [],
  // The screen shown (the tabs) and the Count tab's mode ("count" or "advise").
  tab: "score",
  countMode: "count",
  // The engine's catalogue of rules (GET /api/rules), or why it is missing.
  rules: { catalogue: null, error: "" },
  // The pegging hint: each player's cards still in hand, as tapped on this phone.
  hint: { open: false, hands: {}, handKey: "", for: null, key: "", result: null, error: "" },
  // Cards mode's count on the Score screen: the count it is for, and the cards tapped.
  showPick: { key: "", cards: [] },
  // The Count screen: the cards tapped and the engine's breakdown.
  count: { hand: [], starter: null, target: "hand", result: null, due: null },
  // Which two to throw: the cards dealt, the role and the engine's ranking.
  advice: { cards: [], dealer: null, chosenByHand: false, result: null, all: false, key: "", handKey: "" },
};
window.cribState = state; // for the browser tests and curious players

// Topics: "game", "board", "shuffler", "devices", "link", "outbox"; "all" reaches every subscriber.
const subscribers = [];

/** Call `fn(topic)` whenever one of `topics` (or "all") is published. */
export function subscribe(topics, fn) {
  const entry = { topics: new Set(topics), fn };
  subscribers.push(entry);
  return () => { const i = subscribers.indexOf(entry); if (i >= 0) subscribers.splice(i, 1); };
}

/** Tell the screens that `topic` changed in the store. */
export function publish(topic) {
  for (const s of [...subscribers]) if (topic === "all" || s.topics.has(topic)) s.fn(topic);
}

/** Take a game view in (newer than the one held, and not the game this phone left). */
export function setGame(game) {
  if (game && state.game && game.id === state.game.id && game.version < state.game.version) return; // stale echo
  if (game && state.leftGameId === game.id) return; // this phone left that game for the new-game form
  state.game = game;
  state.lastUpdate = Date.now();
  publish("game");
}

/** This phone's pairing is gone (refused by the table, or forgotten here): watching only. */
export function forgetToken(message) {
  state.token = "";
  localStorage.removeItem("crib.token");
  publish("all");
  if (message) toast(message, null, 6);
}
