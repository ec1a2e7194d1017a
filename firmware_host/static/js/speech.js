// What the page says aloud, with the phone's own voices (speechSynthesis, offline), and which
// phone says it: exactly one at the table, so that two phones never echo.
//
// The table keeps the speaking phone's id (PUT /api/settings {speaker}, told to every phone
// with the board). "This phone speaks" is this phone's wish, kept in localStorage: on ("1")
// it takes the speaking over when the page loads or is paired; off ("0") it never does; never
// set, it speaks when no phone speaks yet, so the phone paired first is the one that speaks.
// Another phone taking it over turns the wish off here.
import { spoken } from "./cards.js";
import { $ } from "./dom.js";
import { api, opId, sayOf } from "./net.js";
import { publish, state, subscribe } from "./store.js";
import { toast } from "./toast.js";

export const canSpeak = () => typeof window.speechSynthesis !== "undefined" && typeof window.SpeechSynthesisUtterance !== "undefined";
const WISH = "crib.speak";
/** This browser's own id at the table (made once, kept in its storage). */
function phoneId() {
  let id = localStorage.getItem("crib.id");
  if (!id) { id = opId(); localStorage.setItem("crib.id", id); }
  return id;
}
const tableKnows = () => !!state.board && typeof state.board.speaker === "string";
/** Whether this phone is the one that speaks. */
function speaksHere() {
  if (!canSpeak()) return false;
  return tableKnows() ? state.board.speaker === phoneId() : localStorage.getItem(WISH) === "1";
}
export function speak(text) {
  if (!text || !canSpeak()) return;
  state.spoken.push(text); // what was said, for the tests and the curious
  const u = new SpeechSynthesisUtterance(text);
  u.lang = document.documentElement.lang || "en";
  window.speechSynthesis.speak(u);
}
/** Say `text` if this phone is the one that speaks. */
export function say(text) { if (speaksHere()) speak(text); }

// What the table says after a step, from the engine's events: a card played as "six of clubs,
// 31" (the event's count is the count the card made, 31 and the last card included), a
// shown hand as its breakdown ("Bob's hand: fifteen two and a pair is four"), the rest in
// the events' own words (an undo as "Undone: Ann's hand: 8 (Ann 50 → 42).").
export function spokenEvents(events) {
  const out = [];
  for (const e of events || []) {
    let words = String(e.say || "").trim();
    if (e.kind === "play" && e.card) words = `${spoken(e.card)}, ${e.count}.`;
    else if (e.kind === "starter" && e.card) words = `Starter, ${spoken(e.card)}.`;
    else if (e.kind === "show") {
      const said = e.breakdown && e.breakdown.say;
      words = said ? `${e.label}: ${said}.` : words.replace(/: (19|0) \(nothing\)\.?$/, ": nineteen, nothing.");
    } else if (e.kind === "score" && ["hand", "crib", "hand_and_crib"].includes(e.reason)) continue; // said by the show
    if (words && !out.includes(words)) out.push(words);
  }
  return out.join(" ");
}

let pending = false; // a claim on its way: the board's older word does not turn the wish off
let decided = false; // the wish was acted on once for this page
async function setSpeaker(id) {
  pending = true;
  try {
    const st = await api("PUT", "/api/settings", { speaker: id });
    if (state.board) { state.board = { ...state.board, speaker: st.speaker ?? id }; publish("board"); }
  } catch (err) { toast(sayOf(err), null, 6); }
  pending = false;
  renderSpeaker();
}
function actOnWish() {
  if (decided || !state.token || !tableKnows()) return;
  decided = true;
  const wish = localStorage.getItem(WISH);
  if (state.board.speaker === phoneId()) return;
  if (wish === "1" || (wish === null && !state.board.speaker && canSpeak())) setSpeaker(phoneId());
}
function renderSpeaker() {
  const box = $("#speak-all");
  const here = speaksHere();
  box.checked = here;
  box.disabled = !canSpeak() || !state.token;
  if (tableKnows() && !pending && state.board.speaker && !here) localStorage.setItem(WISH, "0");
  $("#speak-note").textContent = !canSpeak() ? "This browser has no speech voices." :
    !state.token ? "Pair this phone to make it the one that speaks." :
    here ? "This phone reads every count and peg aloud; the others stay quiet." :
    tableKnows() && state.board.speaker ? "Another phone at the table speaks. Tick to speak here instead." :
    "No phone speaks. Tick to read every count and peg aloud here.";
}

// The screen's controls, wired once the page has loaded.
export function mount() {
  subscribe(["board", "all"], () => { actOnWish(); renderSpeaker(); });
  renderSpeaker();
  $("#speak-all").addEventListener("change", (ev) => {
    const on = ev.target.checked;
    localStorage.setItem(WISH, on ? "1" : "0");
    if (on) { setSpeaker(phoneId()); speak("Counts and pegs will be read aloud on this phone."); }
    else if (speaksHere()) setSpeaker("");
  });
}
