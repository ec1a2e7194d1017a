// What happened, shown on every phone and said by the one that speaks: each step the stream
// brings (the game and the engine's events), once. A step of this phone's own tap is shown by
// the tap itself (with its Undo): the stream's copy of it is left out.
import { resultText } from "./game.js";
import { say, spokenEvents } from "./speech.js";
import { state, subscribe } from "./store.js";
import { toast } from "./toast.js";

const shown = new Set(); // "game id/version" of every step shown on this phone
let tapping = 0; // this phone's taps on their way: the stream's steps wait for their answers
const keyOf = (game) => `${game.id}/${game.version}`;

// What a step did, in the engine's own words: the `say` of each event of its step, in order,
// once each ("Ann plays the 5♠: 15. Ann pegs 2: fifteen two."). No game views are compared.
export function eventWords(events) {
  const says = [];
  for (const e of events || []) {
    const words = String((e && e.say) || "").trim();
    if (words && !says.includes(words)) says.push(words);
  }
  return says.join(" ");
}
// The result line, when the step ended the game and its events did not say so.
export function resultOf(game, events) {
  const ended = game.result && (events || []).some((e) => e.kind === "score" || e.kind === "show");
  return ended && !(events || []).some((e) => e.kind === "game_over") ? ` ${resultText(game)}.` : "";
}

/** A tap of this phone is on its way; `answered(game)` when it is done (game: its step). */
export function sending() { tapping++; }
export function answered(game) {
  if (game) shown.add(keyOf(game));
  tapping = Math.max(0, tapping - 1);
  drain();
}
/** Mark this phone's own step as shown (its tap shows it). */
export function ownStep(game) { shown.add(keyOf(game)); }

function drain() {
  if (tapping) return;
  while (state.steps.length) {
    const { game, events } = state.steps.shift();
    const key = keyOf(game);
    if (shown.has(key)) continue;
    shown.add(key);
    const words = eventWords(events);
    if (!words) continue;
    const result = resultOf(game, events);
    toast(words + result, null, 5);
    say(spokenEvents(events) + result);
  }
  if (shown.size > 2000) shown.clear(); // a long evening: the old steps are long past
}

export function mount() {
  subscribe(["step"], drain);
}
