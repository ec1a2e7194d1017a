// The pairing dialog: type the board's code, or compare it and hold undo.
import { $, $$ } from "../js/dom.js";
import { api } from "../js/net.js";
import { publish, state } from "../js/store.js";
import { toast } from "../js/toast.js";

// Pairing. One request is on the board at a time, and it is asked for only when the
// person chooses a way (each phone may ask for three codes in ten minutes):
// - typed: the board lights a code; typing it here pairs (only this phone's code counts);
// - compare: this page shows the code of its own request, the board lights the same code, and
//   holding the board's undo button approves that request only; the page asks until it is.
// Presence wins: when another phone holds the board (or it did lately), holding undo puts out
// what is lit and lights a code any phone may type, so a refused phone is taken to typing.
export const PAIR = { request: null, digits: 6, expiresAt: 0, poll: 0, tick: 0 };
export const MOST_DIGITS = 12; // a code lit by a hold grows to this after many wrong guesses
export const NUMBER_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"];
export const CHECK_EVERY_MS = 2500; // the daemon answers 30 checks a minute per phone
// "482913" -> "482 913", as a person reads it off the board.
export const groupCode = (code) => code.replace(/\B(?=(\d{3})+(?!\d))/g, " ");
// "try again in 540 s" -> "try again in 9 minutes": waits as a person says them.
export const friendlyWait = (text) => text.replace(/in (\d+) s\b/g, (_, n) => {
  const s = Number(n);
  if (s < 90) return `in ${s} s`;
  const m = Math.ceil(s / 60);
  return `in ${m} minutes`;
});
export function sentence(text) {
  const t = friendlyWait(String(text || "").trim());
  if (!t) return "";
  const s = t.charAt(0).toUpperCase() + t.slice(1);
  return /[.!?]$/.test(s) ? s : `${s}.`;
}
// The API's refusal as a sentence for the person holding the phone.
export function pairSay(err) {
  if (err.network) return sentence(err.message);
  const code = err.data && err.data.code;
  if (code === "name_taken") return sentence(err.message);
  if (code === "pairing_busy") return sentence(err.message); // "Someone else is pairing; try again in 87 s."
  if (err.status === 429) return sentence(err.message);
  // A schema refusal (no sentence of the daemon's, only field details) is said in general terms.
  if (err.status === 413 || (err.status === 422 && !code)) return "The table did not understand that: check the name and the code.";
  return sentence(err.say || err.message);
}
export function pairStep(step) {
  $("#pair-form").dataset.step = step;
  $("#pair-choose").hidden = step !== "choose";
  $("#pair-typed").hidden = step !== "typed";
  $("#pair-compare").hidden = step !== "compare";
  $("#pair-back").hidden = step === "choose";
}
export function stopPairWait() {
  clearTimeout(PAIR.poll);
  clearInterval(PAIR.tick);
  PAIR.poll = 0;
  PAIR.tick = 0;
}
export function pairError(text) { $("#pair-error").textContent = text; }
export function openPairing() {
  const dialog = $("#pair-dialog");
  const form = $("#pair-form");
  stopPairWait();
  pairError("");
  form.code.value = "";
  // Not pre-filled: a name typed after a default would be glued to it ("phoneann").
  form.name.placeholder = localStorage.getItem("crib.phone") || "e.g. ann-phone";
  pairStep("choose");
  if (!dialog.open) dialog.showModal();
  $("#pair-type").focus();
}
export async function askForCode(hold) {
  stopPairWait();
  pairError("");
  let out;
  try {
    out = await api("POST", "/api/pair/start", { hold });
  } catch (err) {
    PAIR.request = null;
    if (err.data && err.data.code === "pairing_busy") { atTheBoard(err); return; }
    pairStep("choose");
    pairError(pairSay(err));
    return;
  }
  PAIR.request = out.request;
  PAIR.digits = out.digits || 6;
  PAIR.expiresAt = Date.now() + out.expires_s * 1000;
  $$(".pair-digits").forEach((n) => { n.textContent = NUMBER_WORDS[PAIR.digits] || String(PAIR.digits); });
  $("#hold-s").textContent = String(out.hold_s); // the daemon's undo_hold_s, never assumed here
  if (!hold) {
    pairStep("typed");
    $("#pair-form").code.focus();
    return;
  }
  $("#pair-code").textContent = groupCode(out.code);
  $("#pair-code").setAttribute("aria-label", `The code: ${out.code.split("").join(" ")}`);
  pairStep("compare");
  showPairWait();
  PAIR.tick = setInterval(showPairWait, 1000);
  PAIR.poll = setTimeout(checkHeld, CHECK_EVERY_MS);
}
// Turned away (or a hold lit a code for whoever types it): the person at the table holds undo
// and types the code the board lights, whoever else is asking.
export function atTheBoard(err) {
  stopPairWait();
  const hold = err.data && err.data.hold_s;
  const how = err.data && err.data.lit ? "" : (hold
    ? ` At the table? Hold the board's undo button for ${hold} s: it lights a new code; type it here.`
    : "");
  pairStep("typed");
  pairError(`${pairSay(err)}${how}`);
  $("#pair-form").code.focus();
}
export function showPairWait() {
  const left = Math.max(0, Math.round((PAIR.expiresAt - Date.now()) / 1000));
  if (left <= 0) {
    stopPairWait();
    pairStep("choose");
    pairError("The code ran out before undo was held: choose a way to ask for a new one.");
    return;
  }
  const mm = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
  $("#pair-wait").textContent = `Waiting for the undo button… (the code is good for ${mm})`;
}
// Asks whether undo was held for this page's request; again and again until it was.
export async function checkHeld() {
  if (!$("#pair-dialog").open || $("#pair-form").dataset.step !== "compare" || !PAIR.request) return;
  let next = CHECK_EVERY_MS;
  try {
    const out = await api("POST", "/api/pair", { request: PAIR.request, name: pairName() });
    paired(out);
    return;
  } catch (err) {
    const code = err.data && err.data.code;
    if (err.data && err.data.lit) { atTheBoard(err); return; } // a hold lit a code to type
    if (err.data && err.data.waiting) pairError("");
    // A taken or malformed name, or a lost connection: keeps asking (the name can be changed meanwhile).
    else if (code === "name_taken" || code === "bad_request" || err.status === 422 || err.network) pairError(pairSay(err));
    else if (err.status === 429) next = Math.max(next, 1000 * Number(err.data.retry_after || 5));
    else {
      // The request is gone (run out, or replaced by this phone asking again): start over.
      stopPairWait();
      pairStep("choose");
      pairError(`${pairSay(err)} Choose a way to ask for a new code.`);
      return;
    }
  }
  if ($("#pair-dialog").open && $("#pair-form").dataset.step === "compare") PAIR.poll = setTimeout(checkHeld, next);
}
export const pairName = () => $("#pair-form").name.value.trim() || "phone";
export function paired(out) {
  stopPairWait();
  PAIR.request = null;
  state.token = out.token;
  state.tokenName = out.name;
  localStorage.setItem("crib.token", state.token);
  localStorage.setItem("crib.phone", out.name);
  $("#pair-dialog").close();
  toast(`Paired as “${out.name}”. This phone can keep score.`);
  publish("all");
}
export async function pairWithCode(code) {
  try {
    paired(await api("POST", "/api/pair", { code, name: pairName() }));
  } catch (err) {
    pairError(pairSay(err));
    const code = err.data && err.data.code;
    if (code === "name_taken") { $("#pair-form").name.focus(); return; }
    // A withdrawn or lapsed code cannot be typed any more: back to asking for one (a code
    // lit by a hold is lit again by holding undo again: still typing).
    if (code === "pairing_failed" && /withdrawn|no pairing is pending/.test(err.message)
        && !/hold the board's undo button again/.test(err.message)) {
      pairStep("choose");
      pairError(`${pairSay(err)} Choose a way to ask for a new code.`);
    }
  }
}

// The screen's controls, wired once the page has loaded.
export function mount() {
  $("#pair-open").addEventListener("click", openPairing);
  $("#watch-pair").addEventListener("click", openPairing);
  $("#settings-pair").addEventListener("click", openPairing);
  $("#pair-type").addEventListener("click", () => askForCode(false));
  $("#pair-hold").addEventListener("click", () => askForCode(true));
  $("#pair-back").addEventListener("click", () => { stopPairWait(); pairError(""); pairStep("choose"); $("#pair-type").focus(); });
  $("#pair-dialog").addEventListener("close", stopPairWait);
  $("#pair-form").addEventListener("submit", (ev) => {
    if (ev.submitter && ev.submitter.value === "cancel") return;
    ev.preventDefault();
    if (ev.target.dataset.step !== "typed") return; // Enter in the name field chooses nothing
    const code = ev.target.code.value.replace(/\s+/g, "");
    if (!new RegExp(`^\\d{${PAIR.digits},${MOST_DIGITS}}$`).test(code)) { pairError(`Type the ${PAIR.digits} digits the board shows.`); return; }
    pairWithCode(code);
  });
}

export { openPairing as render };
