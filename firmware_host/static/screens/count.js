// The Count screen: tap a hand and the starter, the engine's breakdown, send it to score.
import { act } from "../js/actions.js";
import { isRed, pretty, spoken } from "../js/cards.js";
import { countVariant } from "../js/countmode.js";
import { $, $$, el } from "../js/dom.js";
import { api, sayOf } from "../js/net.js";
import { buildPicker } from "../js/picker.js";
import { cardsIn } from "../js/rules.js";
import { canSpeak, say, speak } from "../js/speech.js";
import { state, subscribe } from "../js/store.js";
import { showTab } from "../js/tabs.js";
import { toast } from "../js/toast.js";

function countSize() { return cardsIn(countVariant(), state.count.crib ? "crib" : "hand"); }
// Bug 5: while a count of a cards-mode game is due, every card known to be elsewhere this
// deal (laid in the play from another hand; for the crib, from any hand) is greyed out.
// Whether the screen holds the count due in a cards-mode game (opened from the Score screen);
// otherwise it is a free "what does this hand make", tied to no game.
function dueHere() {
  const game = state.game;
  return !!(game && game.mode === "cards" && game.next_count && !game.result && state.count.due === game.next_count.label);
}
function elsewhere() {
  const game = state.game;
  if (!dueHere()) return new Set();
  const next = game.next_count;
  const played = (game.play && game.play.played) || [];
  return new Set(played.filter((p) => next.kind === "crib" || p.player !== next.player).map((p) => p.card));
}
function renderCount() {
  $("#count-crib").checked = !!state.count.crib;
  const size = countSize();
  $("#pick-hand").setAttribute("aria-pressed", String(state.count.target === "hand"));
  $("#pick-starter").setAttribute("aria-pressed", String(state.count.target === "starter"));
  const away = elsewhere();
  buildPicker($("#count-picker"), pickCountCard, (c) => away.has(c) && !state.count.hand.includes(c),
    (c) => state.count.hand.includes(c) || state.count.starter === c, (c) => (state.count.starter === c ? "starter" : ""));
  // The count due in cards mode, said above the picker: a card never laid in the play (the
  // five-card game's single round, a hand left holding a card) is still to be tapped.
  const game = state.game;
  const due = dueHere() ? state.count.due : null;
  const left = size === null ? 0 : Math.max(0, size - state.count.hand.length);
  const crib = !!state.count.crib;
  $("#count-ask").textContent = !due ? "Tap the hand cards, then the starter." : `${due}: ` + (left ?
    `tap ${left === 1 ? "the card" : `the ${left} cards`} ${crib ? "of the crib" : "not laid in the play"}${state.count.starter ? "" : ", then the starter"}.` :
    state.count.starter ? "check the count, then send it." : "tap the starter.");
  // Why cards are greyed out, when they are: the count due knows where they went.
  $("#count-greyed").hidden = !away.size;
  $("#count-greyed").textContent = away.size ? `Greyed: ${away.size === 1 ? "a card" : "cards"} laid in the play from ${crib ? "the hands" : "another hand"}.` : "";
  const chosen = $("#chosen");
  chosen.replaceChildren(...[...state.count.hand.map((c) => el("span", { class: isRed(c) ? "red" : "", "data-card": c, "aria-label": spoken(c), text: pretty(c) + " " })),
    left ? el("span", { class: "hint", text: ` (${left} more)` }) : null,
    state.count.starter ? el("span", { text: " | starter " }) : left ? null : el("span", { class: "hint", text: " — now the starter" }),
    state.count.starter ? el("span", { class: isRed(state.count.starter) ? "red" : "", "data-card": state.count.starter, "aria-label": spoken(state.count.starter), text: pretty(state.count.starter) }) : null].filter(Boolean)); // null would show as "null"
  renderBreakdown();
}
function pickCountCard(card) {
  const size = countSize();
  if (elsewhere().has(card) && !state.count.hand.includes(card)) return;
  if (state.count.hand.includes(card)) state.count.hand = state.count.hand.filter((c) => c !== card);
  else if (state.count.starter === card) state.count.starter = null;
  else if (state.count.target === "starter" || (size !== null && state.count.hand.length >= size)) { state.count.starter = card; state.count.target = "hand"; }
  else { state.count.hand.push(card); if (state.count.hand.length === size && !state.count.starter) state.count.target = "starter"; }
  state.count.result = null;
  renderCount();
  if (state.count.starter && (size === null ? state.count.hand.length > 0 : state.count.hand.length === size)) countNow(true);
}
async function countNow(reveal = false) {
  try {
    state.count.result = await api("POST", "/api/count", { hand: state.count.hand, starter: state.count.starter, crib: !!state.count.crib, variant: countVariant() });
  } catch (err) { state.count.result = null; toast(sayOf(err), null, 6); }
  renderBreakdown();
  // Bug 13: after the last card the total and Send come into view.
  if (reveal && state.count.result) ($("#count-to-score").hidden ? $("#breakdown") : $("#count-to-score")).scrollIntoView({ block: "nearest" });
  // A count about to be sent is said once, when it is sent; a free count when it is shown.
  if (state.count.result && !dueHere()) say(state.count.result.say);
}
function renderBreakdown() {
  const box = $("#breakdown");
  const r = state.count.result;
  const send = $("#count-to-score");
  if (!r) { box.replaceChildren(); send.hidden = true; $("#claim-label").hidden = true; return; }
  const items = (r.combinations || []).map((combo) => el("li", {
    tabindex: 0, "data-kind": combo.kind,
    onclick: (ev) => highlight(combo.cards, ev.currentTarget), onfocus: (ev) => highlight(combo.cards, ev.currentTarget),
  }, `${combo.kind} ${(combo.cards || []).map(pretty).join(" ")} — ${combo.points}`));
  box.replaceChildren(el("div", { class: "total", text: String(r.total) }),
    el("p", { class: "say", text: r.say }),
    canSpeak() ? el("button", { type: "button", class: "secondary", id: "say-it", text: "Say it", "aria-label": "Say it: the count, aloud", onclick: () => { state.count.said = r.say; speak(r.say); } }) : null,
    el("ul", {}, ...items));
  const game = state.game;
  // In cards mode only the count opened from the Score screen is sent; a free count is not.
  send.hidden = !(game && game.next_count && !game.result && (game.legal || []).includes("count") && (game.mode !== "cards" || dueHere()));
  $("#claim-label").hidden = send.hidden || game.mode !== "cards" || !game.muggins;
  if (!send.hidden) send.textContent = game.mode === "cards" && game.muggins ? `Send to ${game.next_count.label}` : `Send ${r.total} to ${game.next_count.label}`;
}
function highlight(cards, li) {
  for (const x of $$("#breakdown li")) x.classList.toggle("hi", x === li);
  for (const span of $$("#chosen [data-card]")) span.classList.toggle("hi", cards.includes(span.dataset.card));
}
// Cards mode: the count due, opened from the Score screen (js/countmode.js filled it in).
let opened = 0;
function renderDue() {
  if (state.tab !== "count" || state.countMode !== "count") return;
  renderCount();
  if (opened === state.count.opened) return;
  opened = state.count.opened;
  // Every card known already: straight to the breakdown (below the picker) and the send.
  if (state.count.starter && state.count.hand.length === countSize()) countNow().then(() => $("#count-to-score").scrollIntoView({ block: "center" }));
}

// The screen's controls, wired once the page has loaded.
export function mount() {
  subscribe(["tab", "countmode"], renderDue);
  $("#pick-hand").addEventListener("click", () => { state.count.target = "hand"; renderCount(); });
  $("#pick-starter").addEventListener("click", () => { state.count.target = "starter"; renderCount(); });
  $("#count-clear").addEventListener("click", () => { state.count.hand = []; state.count.starter = null; state.count.result = null; state.count.target = "hand"; renderCount(); $("#advice").replaceChildren(); });
  $("#count-crib").addEventListener("change", (ev) => { state.count.crib = ev.target.checked; if (state.count.result) countNow(); });
  $("#count-to-score").addEventListener("click", async () => {
    const game = state.game;
    if (!game || !state.count.result) return;
    let done;
    if (game.mode === "cards") {
      // With muggins on, the player's own count is sent and what it misses can be claimed.
      const action = { type: "count", cards: state.count.hand };
      const claim = $("#count-claim").value.trim();
      if (game.muggins && claim !== "") {
        const n = Number(claim);
        if (!Number.isInteger(n) || n < 0) { toast("Type the points counted, or leave it empty for the full count."); return; }
        action.points = n;
      }
      done = await act(action, { unspoken: state.count.said === state.count.result.say });
    } else done = await act({ type: "count", points: state.count.result.total });
    if (!done) return;
    $("#count-claim").value = "";
    state.count.hand = []; state.count.starter = null; state.count.result = null; state.count.target = "hand"; state.count.due = null; state.count.said = "";
    renderCount();
    showTab("score");
  });
}

export { renderCount as render };
