// What the page says aloud, with the phone's own voices (speechSynthesis, offline).
import { describeAction, heelsPegged, peggedSince } from "./actions.js";
import { pips, spoken } from "./cards.js";
import { $ } from "./dom.js";
import { state } from "./store.js";

// The count read aloud in the table's words, with the phone's own voices (works offline).
export const canSpeak = () => typeof window.speechSynthesis !== "undefined" && typeof window.SpeechSynthesisUtterance !== "undefined";
export const speakAll = () => localStorage.getItem("crib.speak") === "1";
export function speak(text) {
  if (!text || !canSpeak()) return;
  state.spoken.push(text); // what was said, for the tests and the curious
  const u = new SpeechSynthesisUtterance(text);
  u.lang = document.documentElement.lang || "en";
  window.speechSynthesis.speak(u);
}
// What the table says after a tap: the engine's words for pegs and counts.
export function spokenAction(a, game, before) {
  const pegged = peggedSince(before, game);
  switch (a.type) {
    case "play": {
      // The count the card made: at 31 or the last card the engine has already started the
      // next series at 0, so it is the count before the card and the card's own pips.
      const reached = before && before.play && before.id === game.id ? (before.play.count ?? 0) + pips(a.card) : game.play && game.play.count;
      return `${spoken(a.card)}${reached === null || reached === undefined ? "" : `, ${reached}`}` + (pegged ? `. ${pegged}` : "");
    }
    case "go": return describeAction(a, game, before);
    case "peg": case "late_peg": return `${a.points} for ${game.sides[a.side] ? game.sides[a.side].name : ""}`;
    case "heels": return describeAction(a, game, before);
    case "starter": return `starter, ${spoken(a.card)}${heelsPegged(game, before)}`;
    case "count": {
      const last = game.last_count;
      const say = last && last.breakdown && last.breakdown.say;
      return say ? `${last.label}: ${say}` : describeAction(a, game, before).replace(/: (19|0) \(nothing\)$/, ": nineteen, nothing");
    }
    default: return describeAction(a, game, before);
  }
}

// The screen's controls, wired once the page has loaded.
export function mount() {
  $("#speak-all").checked = speakAll();
  $("#speak-all").disabled = !canSpeak();
  $("#speak-note").textContent = canSpeak() ? "" : "This browser has no speech voices.";
  $("#speak-all").addEventListener("change", (ev) => {
    localStorage.setItem("crib.speak", ev.target.checked ? "1" : "0");
    if (ev.target.checked) speak("Counts and pegs will be read aloud.");
  });
}
