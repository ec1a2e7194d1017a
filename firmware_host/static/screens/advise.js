// The Count tab's second mode: which two to throw.
import { isRed, pretty } from "../js/cards.js";
import { countVariant, setCountMode } from "../js/countmode.js";
import { $, el } from "../js/dom.js";
import { sideOfPlayer } from "../js/game.js";
import { api, sayOf } from "../js/net.js";
import { buildPicker } from "../js/picker.js";
import { dealtCards, variantRules } from "../js/rules.js";
import { state, subscribe } from "../js/store.js";
import { toast } from "../js/toast.js";

// Who this phone's player is, when the phone's name holds exactly one player's name.
function phonePlayer(game) {
  const phone = (state.tokenName || "").toLowerCase();
  if (!game || !phone) return null;
  const hits = game.names.map((n, i) => [n.toLowerCase(), i]).filter(([n]) => n && phone.includes(n));
  return hits.length === 1 ? hits[0][1] : null;
}
// The default answer to "who deals", from the game in progress when the page can tell.
function defaultRole(game) {
  if (!game || game.dealer === null || game.dealer === undefined || game.result) return null;
  const me = phonePlayer(game);
  if (me === null) return null;
  return sideOfPlayer(game, me) === sideOfPlayer(game, game.crib_owner ?? game.dealer);
}
function renderAdvisor() {
  const game = state.game;
  const variant = countVariant();
  const want = dealtCards(variant);
  if (want === null) {
    // No catalogue, no guess: the advisor needs the number of cards dealt.
    $("#advise-ask").textContent = `The table has not sent its rules (${state.rules.error || "no answer"}): reload the page.`;
    return;
  }
  if (state.advice.cards.length > want) state.advice.cards = state.advice.cards.slice(0, want);
  const handKey = game ? `${game.id}/${game.game_number}/${game.hand_number}` : "";
  if (handKey !== state.advice.handKey) { state.advice.handKey = handKey; state.advice.chosenByHand = false; }
  if (!state.advice.chosenByHand) state.advice.dealer = defaultRole(game);
  const partners = !!(variantRules(variant) || {}).partners;
  $("#role-dealer").textContent = partners ? "Our crib" : "I deal";
  $("#role-pone").textContent = partners ? "Their crib" : "I'm pone";
  $("#role-dealer").setAttribute("aria-pressed", String(state.advice.dealer === true));
  $("#role-pone").setAttribute("aria-pressed", String(state.advice.dealer === false));
  const me = phonePlayer(game);
  const dealerName = game && game.dealer !== null && game.dealer !== undefined && !game.result ? game.names[game.dealer] : null;
  $("#role-note").textContent = dealerName ?
    `${dealerName} deals this hand` + (me !== null && !state.advice.chosenByHand && state.advice.dealer !== null ? ` (this phone is ${game.names[me]}'s).` : ".") : "";
  $("#advise-ask").textContent = state.advice.cards.length < want ?
    `Tap the ${want} cards you were dealt (${want - state.advice.cards.length} more), then say who deals.` :
    state.advice.dealer === null ? "Now say who deals." : "Tap a card to take it back.";
  $("#dealt").replaceChildren(...state.advice.cards.map((c) => el("span", { class: isRed(c) ? "red" : "", "data-card": c, text: pretty(c) + " " })));
  buildPicker($("#advise-picker"), (card) => {
    if (!state.advice.cards.includes(card) && state.advice.cards.length >= want) { toast(`${want} cards are picked: tap one of them to take it back.`); return; }
    state.advice.cards = state.advice.cards.includes(card) ? state.advice.cards.filter((c) => c !== card) : [...state.advice.cards, card];
    renderAdvisor();
  }, () => false, (card) => state.advice.cards.includes(card));
  const ready = state.advice.cards.length === want && state.advice.dealer !== null;
  if (!ready) { state.advice.key = ""; state.advice.result = null; $("#advice").replaceChildren(); return; }
  const body = { hand: state.advice.cards, dealer: state.advice.dealer, variant, model: "random" };
  const key = JSON.stringify(body);
  if (key === state.advice.key) { if (state.advice.result) showAdvice(state.advice.result); return; }
  state.advice.key = key; state.advice.result = null;
  $("#advice").replaceChildren(el("p", { class: "hint", text: "Working it out…" }));
  api("POST", "/api/advise", body).then((adv) => {
    if (state.advice.key !== key) return;
    state.advice.result = adv;
    showAdvice(adv);
  }).catch((err) => { if (state.advice.key === key) $("#advice").replaceChildren(el("p", { class: "error", text: sayOf(err) })); });
}
const cardsText = (cards) => cards.map((c) => el("span", { class: isRed(c) ? "red" : "", text: pretty(c) }))
  .flatMap((x, i) => (i ? [" ", x] : [x]));
function showAdvice(adv) {
  const options = adv.options || [];
  const best = options[0];
  if (!best) { $("#advice").replaceChildren(); return; }
  const f = (x) => Number(x).toFixed(2);
  const whose = adv.dealer ? "your crib" : "their crib";
  const rows = state.advice.all ? options : options.slice(0, 6);
  const summary = el("p", { class: "advice-best", "data-net": f(best.net) }, "Keep ", ...cardsText(best.keep),
    `, throw `, ...cardsText(best.discard), ` to ${whose}: `, el("strong", { text: f(best.net) }),
    ` a hand on average (hand ${f(best.hand)} ${adv.dealer ? "+" : "−"} crib ${f(best.crib)}).`);
  const table = el("table", { "aria-label": `Every discard for the ${adv.dealer ? "dealer" : "pone"}, best first` },
    el("thead", {}, el("tr", {}, ...["Keep", "Throw", "Hand", "Crib", "Net"].map((h) => el("th", { scope: "col", text: h })))),
    el("tbody", {}, ...rows.map((o, i) => el("tr", { class: i === 0 ? "best" : "", "data-keep": o.keep.join(" "), "data-discard": o.discard.join(" ") },
      el("td", {}, ...cardsText(o.keep)), el("td", {}, ...cardsText(o.discard)),
      el("td", { text: f(o.hand), title: `hand ${o.hand_min} to ${o.hand_max}` }), el("td", { text: f(o.crib) }),
      el("td", { class: "net", text: f(o.net) })))));
  const more = options.length > 6 ? el("button", { type: "button", class: "secondary", id: "advice-all",
    text: state.advice.all ? "Show the best 6" : `Show all ${options.length}`, onclick: () => { state.advice.all = !state.advice.all; showAdvice(adv); } }) : null;
  $("#advice").replaceChildren(summary, table,
    el("p", { class: "hint", text: `Exact averages over every starter and every crib the other ${adv.unseen} cards can make (${adv.model} model).` }), more);
}

// The screen's controls, wired once the page has loaded.
export function mount() {
  // Shown while the Count tab is open in this mode, and kept up with the game meanwhile.
  subscribe(["tab", "countmode", "game"], () => { if (state.tab === "count" && state.countMode === "advise") renderAdvisor(); });
  $("#mode-count").addEventListener("click", () => setCountMode("count"));
  $("#mode-advise").addEventListener("click", () => setCountMode("advise"));

  $("#role-dealer").addEventListener("click", () => { state.advice.dealer = true; state.advice.chosenByHand = true; renderAdvisor(); });
  $("#role-pone").addEventListener("click", () => { state.advice.dealer = false; state.advice.chosenByHand = true; renderAdvisor(); });
  $("#advise-clear").addEventListener("click", () => { state.advice.cards = []; state.advice.all = false; state.advice.chosenByHand = false; renderAdvisor(); });
}

export { renderAdvisor as render };
