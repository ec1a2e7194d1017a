// Cards mode on the Score screen: the starter, the play (the running count, the card picker,
// the hint) and the counts, each by tapping the cards themselves. The hands are known from
// the play, so a hand laid whole is counted without a tap; the crib (and a card never laid)
// is tapped on the same picker, and the count is sent with the last card.
import { act } from "../js/actions.js";
import { eventWords } from "../js/announce.js";
import { isRed, pips, pretty, spoken } from "../js/cards.js";
import { $, $$, el } from "../js/dom.js";
import { api, sayOf } from "../js/net.js";
import { buildPicker } from "../js/picker.js";
import { cardsIn, playLimit } from "../js/rules.js";
import { publish, state } from "../js/store.js";
import { toast } from "../js/toast.js";

/** Draw the cards' box for `game`; whether there is anything to tap in it. */
function renderCards(game, legal) {
  const counting = countByCards(game, legal);
  if (!counting && !legal.has("play") && !legal.has("go") && !legal.has("starter")) return false;
  $("#play-count-line").hidden = !!counting;
  $("#play-chosen").hidden = !counting;
  if (counting) renderCount(game, counting);
  else renderPlay(game, legal);
  return true;
}

// The count due, when the cards tell it: cards mode without muggins (with muggins the player's
// own count is typed, on the Count tab).
function countByCards(game, legal) {
  const next = game.next_count;
  if (game.muggins || !next || !legal.has("count") || !game.starter) return null;
  const size = cardsIn(game.variant, next.kind);
  if (size === null) return null;
  return { next, size, known: knownCards(game, next) };
}
// The cards of a hand known from the play (none of the crib's are).
function knownCards(game, next) {
  if (next.kind !== "hand") return [];
  return ((game.play && game.play.played) || []).filter((p) => p.player === next.player).map((p) => p.card);
}
// Every card seen elsewhere this hand: the starter, and the cards laid by the others (for the
// crib, by anyone).
function seenElsewhere(game, next) {
  const played = (game.play && game.play.played) || [];
  return new Set([game.starter, ...played.filter((p) => next.kind === "crib" || p.player !== next.player).map((p) => p.card)]);
}

function renderCount(game, { next, size, known }) {
  const key = `${game.id}/${game.game_number}/${game.hand_number}/${next.label}`;
  if (state.showPick.key !== key) state.showPick = { key, cards: [...known] };
  const chosen = state.showPick.cards;
  const left = size - chosen.length;
  $("#play-who").textContent = left > 0 ?
    `${next.label}: tap ${left === 1 ? "the card" : `the ${left} cards`}${next.kind === "crib" ? "" : " not laid in the play"}.` :
    `${next.label}: every card is known.`;
  $("#play-say").replaceChildren();
  $("#play-chosen").replaceChildren(...(chosen.length ? [`${next.label}: `, ...chosen.map((c) => el("span", { class: isRed(c) ? "red" : "", "aria-label": spoken(c), "data-card": c, text: `${pretty(c)} ` }))] : []));
  const seen = seenElsewhere(game, next);
  buildPicker($("#play-picker"), (card) => pickForCount(card), (card) => seen.has(card) || (left <= 0 && !chosen.includes(card)), (card) => chosen.includes(card));
  // Every card known (a phone that did not end the play, or a count undone): one tap sends it.
  const go = $("#go-btn");
  go.hidden = left > 0;
  go.disabled = false;
  go.textContent = `Count ${next.label}`;
  go.setAttribute("aria-label", `Count ${next.label}`);
  go.onclick = () => sendCount(chosen);
  $("#play-hint-btn").hidden = true;
  $("#play-hint").hidden = true;
}
function pickForCount(card) {
  const game = state.game;
  const counting = game && countByCards(game, new Set(game.legal || []));
  if (!counting) return;
  const chosen = state.showPick.cards;
  state.showPick.cards = chosen.includes(card) ? chosen.filter((c) => c !== card) : [...chosen, card];
  if (state.showPick.cards.length === counting.size) sendCount(state.showPick.cards);
  else publish("game");
}
// The count of the cards, then every count after it that the play has told already.
function sendCount(cards) {
  act({ type: "count", cards: [...cards] }).then(countKnown);
}
/** After this phone's tap: count each hand that the play laid whole, in show order. */
function countKnown(game) {
  if (!game || game.mode !== "cards") return;
  const counting = countByCards(game, new Set(game.legal || []));
  if (counting && counting.known.length === counting.size) sendCount(counting.known);
}

function renderPlay(game, legal) {
  $("#play-count-line").hidden = false;
  const play = game.play || {};
  const count = play.count ?? 0;
  $("#play-count").textContent = String(count);
  $("#play-seq").textContent = (play.cards || []).map(pretty).join(" ");
  const who = play.next_player ?? null;
  const name = who !== null && game.names ? game.names[who] : "";
  const needStarter = legal.has("starter");
  const limit = playLimit(game);
  // Bug 6: a go is against the rules while a card this phone knows is in the hand fits.
  const known = who === null ? [] : knownHand(game, who);
  const fits = limit === null ? [] : known.filter((c) => pips(c) <= limit - count);
  const canGo = legal.has("go") && !fits.length;
  // Everyone else is out of this series (they said go): the one who laid the last card plays on
  // or takes one for last. A card too big for the count is then the next series' lead, so one
  // tap takes the last point and leads; nobody says go for the last card.
  const series = play.cards || [];
  const lastIn = (play.played || []).at(-1);
  const alone = !needStarter && canGo && series.length > 0 && !!lastIn && lastIn.player === who;
  // Every other player has laid a whole hand: a card that does not fit is this player's go
  // and the next series' lead, in one tap too (the last card's point is the engine's to give).
  const size = cardsIn(game.variant, "hand");
  const laid = (p) => (play.played || []).filter((x) => x.player === p).length;
  const othersOut = size !== null && who !== null && game.names.every((_, p) => p === who || laid(p) >= size);
  const merge = alone || (!needStarter && canGo && series.length > 0 && othersOut);
  $("#play-who").textContent = needStarter ? "Cut the starter and tap it." :
    !name ? "" : fits.length && legal.has("go") ?
      `${name} to play: no go, ${fits.map(pretty).join(" and ")} ${fits.length > 1 ? "fit" : "fits"} (count ${count}, up to ${limit}).` :
      `${name} to play.`;
  // What the engine pegged this hand, the latest first.
  const said = (play.say || []).slice(-1);
  $("#play-say").replaceChildren(...said.map((n, i) => el("li", { class: i === 0 ? "latest" : "", "data-player": String(n.player),
    text: `${game.names[n.player]} pegs ${n.points}: ${n.say}` })));
  const used = new Set([...(play.played || []).map((p) => p.card), ...(game.starter ? [game.starter] : [])]);
  const suggested = !needStarter && state.hint.open && state.hint.result && state.hint.result.card && state.hint.for === who ? state.hint.result.card : null;
  buildPicker($("#play-picker"), (card) => {
    if (!needStarter && merge && limit !== null && pips(card) > limit - count) lastAndLead(who, card);
    else act((g) => cardAction(g, card)).then(countKnown);
  }, (card) => used.has(card) || (!needStarter && !merge && limit !== null && pips(card) > limit - count), () => false,
  (card) => (card === suggested ? "suggest" : ""));
  $("#go-btn").disabled = !canGo;
  $("#go-btn").textContent = alone ? "One for last" : "Go";
  $("#go-btn").setAttribute("aria-label", alone ? `${name} cannot play on: one for last` : canGo ? `Go: ${name} cannot play` : fits.length ? `Go refused: ${fits.map(spoken).join(" and ")} fits` : "Go");
  $("#go-btn").hidden = needStarter;
  // Read when sent, as a card is: the go of whoever is to play then.
  $("#go-btn").onclick = () => act((g) => ((g.legal || []).includes("go") && g.play ? { type: "go", player: g.play.next_player } : null),
    alone ? { skip: ["go"] } : {}).then(countKnown);
  $("#play-hint-btn").hidden = needStarter || who === null;
  renderPlayHint(game, needStarter ? null : who);
}

// A card tapped on the picker, read against the game when the tap is sent: the starter while
// it is due, else the card played by the player to play.
function cardAction(game, card) {
  const legal = new Set(game.legal || []);
  if (legal.has("starter")) return { type: "starter", card };
  if (legal.has("play") && game.play && game.play.next_player !== null && game.play.next_player !== undefined) {
    return { type: "play", player: game.play.next_player, card };
  }
  return null;
}

// One tap for "no more from me, one for last" and the next series' lead: the engine takes the
// last point with the go and says who leads, who then plays the card.
async function lastAndLead(who, card) {
  let said = "";
  // Nobody said go: the words are the last point's ("Bob pegs 1: one for last.").
  const after = await act({ type: "go", player: who }, { quiet: true, skip: ["go"], onWords: (events) => { said = eventWords(events); } });
  if (!after) return;
  const lead = after.play ? after.play.next_player : null;
  if (!(after.legal || []).includes("play") || lead === null || lead === undefined) {
    toast(`${said ? `${said} ` : ""}The play is over, so the ${pretty(card)} is not played.`);
    return;
  }
  act({ type: "play", player: lead, card }, { prefix: said }).then(countKnown);
}

// Each player's cards still in hand, as tapped on this phone for the hint; forgotten with the hand.
function hintHandSize(game, player) {
  const played = ((game.play && game.play.played) || []).filter((p) => p.player === player).length;
  const size = cardsIn(game.variant, "hand");
  return size === null ? null : Math.max(0, size - played);
}
// The cards this phone knows are still in a player's hand (tapped for the hint), less those
// played or cut since.
function knownHand(game, player) {
  const play = game.play || {};
  const used = new Set([...(play.played || []).map((p) => p.card), ...(game.starter ? [game.starter] : [])]);
  return (state.hint.hands[player] || []).filter((c) => !used.has(c));
}
function renderPlayHint(game, who) {
  const box = $("#play-hint");
  const btn = $("#play-hint-btn");
  const handKey = `${game.id}/${game.game_number}/${game.hand_number}`;
  if (state.hint.handKey !== handKey) { state.hint.hands = {}; state.hint.handKey = handKey; state.hint.key = ""; state.hint.result = null; }
  btn.setAttribute("aria-expanded", String(state.hint.open && who !== null));
  btn.setAttribute("aria-pressed", String(state.hint.open && who !== null));
  box.hidden = !state.hint.open || who === null;
  if (box.hidden) return;
  const play = game.play || {};
  const playedCards = (play.played || []).map((p) => p.card);
  const used = new Set([...playedCards, ...(game.starter ? [game.starter] : [])]);
  // Cards played since they were tapped have left the hand.
  const hand = (state.hint.hands[who] || []).filter((c) => !used.has(c));
  state.hint.hands[who] = hand;
  state.hint.for = who;
  const size = hintHandSize(game, who);
  const name = game.names[who];
  $("#play-hint-ask").textContent = hand.length < size ?
    `Tap the ${size === 1 ? "card" : `${size} cards`} ${name} still holds (${size - hand.length} more).` :
    `${name} holds ${hand.map(pretty).join(" ")}.`;
  buildPicker($("#hint-picker"), (card) => {
    const mine = state.hint.hands[who] || [];
    if (!mine.includes(card) && mine.length >= size) { toast(`${name} holds ${size} cards: tap one of them to take it back.`); return; }
    state.hint.hands[who] = mine.includes(card) ? mine.filter((c) => c !== card) : [...mine, card];
    publish("game"); // the Go button depends on the cards known in hand
  }, (card) => used.has(card), (card) => hand.includes(card));
  const out = $("#hint-out");
  if (!hand.length) { out.replaceChildren(); state.hint.key = ""; state.hint.result = null; return; }
  const series = play.cards || [];
  const body = { hand, played: series, count: play.count ?? 0,
    known: [...playedCards.filter((c) => !series.includes(c)), ...(game.starter ? [game.starter] : [])] };
  const key = JSON.stringify(body);
  if (key !== state.hint.key) {
    state.hint.key = key; state.hint.result = null; state.hint.error = "";
    out.replaceChildren(el("p", { class: "hint", text: "Thinking…" }));
    api("POST", "/api/advise/play", body).then((r) => {
      if (state.hint.key !== key) return;
      state.hint.result = r;
      showHint(r, who);
      renderPlayPickerSuggestion();
    }).catch((err) => {
      if (state.hint.key !== key) return;
      state.hint.error = sayOf(err);
      out.replaceChildren(el("p", { class: "error", text: state.hint.error }));
    });
    return;
  }
  if (state.hint.result) showHint(state.hint.result, who);
  else if (state.hint.error) out.replaceChildren(el("p", { class: "error", text: state.hint.error }));
}
function showHint(r, who) {
  const out = $("#hint-out");
  const game = state.game;
  if (!r.card) {
    out.replaceChildren(el("p", { class: "hint-card", "data-card": "", text: "Say go" }),
      el("p", { class: "hint-reason", text: r.reason }));
    return;
  }
  // "play 5H: makes fifteen for 2; ..." → the reason after the card.
  const why = (r.options[0] && r.options[0].reason) || r.reason;
  const others = r.options.slice(1).map((o) => `${pretty(o.card)} ${o.net >= 0 ? "+" : ""}${o.net.toFixed(2)}`);
  out.replaceChildren(
    el("p", { class: "hint-card", "data-card": r.card }, "Play ", el("span", { class: isRed(r.card) ? "red" : "", text: pretty(r.card) }),
      el("span", { class: "hint-net", text: ` ${r.options[0].net >= 0 ? "+" : ""}${r.options[0].net.toFixed(2)}` })),
    el("p", { class: "hint-reason", text: why.charAt(0).toUpperCase() + why.slice(1) + "." }),
    others.length ? el("p", { class: "hint", text: `Others: ${others.join(" · ")} (points now less the expected reply).` }) : null,
    game && game.legal.includes("play") && game.play && game.play.next_player === who ?
      el("button", { type: "button", class: "primary", id: "hint-play", text: `Play ${pretty(r.card)}`,
        onclick: () => act({ type: "play", player: who, card: r.card }).then(countKnown) }) : null);
}
function renderPlayPickerSuggestion() {
  const card = state.hint.open && state.hint.result && state.hint.result.card ? state.hint.result.card : null;
  for (const b of $$("#play-picker button")) b.classList.toggle("suggest", b.dataset.card === card);
}

// The screen's controls, wired once the page has loaded.
export function mount() {
  $("#play-hint-btn").addEventListener("click", () => { state.hint.open = !state.hint.open; publish("game"); });
}

export { renderCards as render };
