// What the page says aloud, with the phone's own voices (speechSynthesis, offline).
import { spoken } from "./cards.js";
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
// What the table says after a tap, from the engine's events: a card played as "six of clubs,
// 31" (the event's count is the count the card made, 31 and the last card included), a
// shown hand as its breakdown ("Bob's hand: fifteen two and a pair is four"), the rest in
// the events' own words.
export function spokenEvents(events, game) {
  const out = [];
  for (const e of events || []) {
    let words = String(e.say || "").trim();
    if (e.kind === "play" && e.card) words = `${spoken(e.card)}, ${e.count}.`;
    else if (e.kind === "starter" && e.card) words = `Starter, ${spoken(e.card)}.`;
    else if (e.kind === "show") {
      const say = e.breakdown && e.breakdown.say;
      words = say ? `${e.label}: ${say}.` : words.replace(/: (19|0) \(nothing\)\.?$/, ": nineteen, nothing.");
    } else if (e.kind === "score" && ["hand", "crib"].includes(e.reason)) continue; // said by the show
    if (words && !out.includes(words)) out.push(words);
  }
  return out.join(" ");
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
