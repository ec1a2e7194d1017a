// The Score screen: each side's pad, the count pad, the starter, muggins, undo and redo; in
// cards mode the play module's box.
import { act, cutForDeal } from "../js/actions.js";
import { isRed, pretty, spoken } from "../js/cards.js";
import { openCountTab, openDueCount } from "../js/countmode.js";
import { $, el } from "../js/dom.js";
import { gamesWon, resultText, sideOfPlayer } from "../js/game.js";
import { sayOf } from "../js/net.js";
import { possibleCounts, variantRules } from "../js/rules.js";
import { publish, setGame, state, subscribe } from "../js/store.js";
import { toast } from "../js/toast.js";
import { render as renderCards } from "./play.js";

// One row a side (every peg of the play but the rare ones), and behind More: 12 and a number.
const PAD = [1, 2, 3, 4, 5, 6];
const MORE = [12];
const sideColour = (i) => `var(--p${i % 4})`;

// The Score screen, region by region, top to bottom.
function renderGame() {
  const game = state.game;
  $("#no-game").hidden = !!game && !game.ended_by_user;
  $("#game").hidden = !game;
  if (!game) return;
  $("#no-game").hidden = true;
  $("#game").classList.toggle("cards", game.mode === "cards");
  const over = game.phase === "over" || !!game.result;
  const legal = new Set(game.legal || []);
  const result = $("#result");
  if (game.result) { result.textContent = resultText(game); result.hidden = false; } else result.hidden = true;
  renderSides(game, legal, over);
  renderDue(game, legal, over);
  renderShowEntry(game, legal, over);
  // Cards mode: the starter, the play and the counts, by the cards themselves.
  const cardsBox = $("#play-cards");
  cardsBox.hidden = !(game.mode === "cards" && !over && renderCards(game, legal));
  renderButtons(game, legal, over, !cardsBox.hidden);
  renderMuggins(game, legal);
}

// One panel per side, with its pad (in cards mode a line each: the cards say the points).
function renderSides(game, legal, over) {
  // (Bug 7: once counting starts the engine closes pegging;
  // the panel says why and how to fix a forgotten peg instead of showing dead buttons).
  const showing = game.phase === "show";
  const pegOpen = !over && legal.has("peg");
  // In the show a peg forgotten in the play goes in as a late peg (the engine records it so),
  // behind one button so that the count pad stays on top.
  const lateKey = `${game.id}/${game.game_number}/${game.hand_number}`;
  if (state.lateKey !== lateKey) { state.lateKey = lateKey; state.lateShown = false; }
  const lateOpen = !over && showing && !pegOpen && legal.has("late_peg");
  const padOpen = pegOpen || (lateOpen && state.lateShown);
  const pegType = pegOpen ? "peg" : "late_peg";
  const sides = $("#sides");
  const heels = $("#heels-btn"); // kept (a dealer's panel holds it while due): panels are redrawn
  if (heels.parentElement !== $("#score-actions")) $("#score-actions").prepend(heels);
  sides.replaceChildren();
  game.sides.forEach((side, i) => {
    const tags = [];
    const dealerSide = game.dealer !== null && game.dealer !== undefined ? sideOfPlayer(game, game.dealer) : null;
    if (dealerSide === i) tags.push("deals");
    const cribSide = game.crib_owner !== null && game.crib_owner !== undefined ? sideOfPlayer(game, game.crib_owner) : dealerSide;
    if (cribSide === i) tags.push("crib");
    const numId = `peg-n-${i}`;
    const num = el("input", { id: numId, inputmode: "numeric", maxlength: 2, "aria-label": `Points to peg for ${side.name}`, placeholder: "pts",
      onkeydown: (ev) => { if (ev.key === "Enter") { ev.preventDefault(); pegNumber(i, num); } } });
    const pegButton = (p) => el("button", {
      type: "button", text: `+${p}`, "aria-label": `${pegOpen ? "Peg" : "Late peg"} ${p} for ${side.name}`, disabled: !padOpen,
      onclick: () => act({ type: pegType, side: i, points: p }),
    });
    const more = !!(state.padMore && state.padMore[i]);
    const pad = el("div", { class: "pad write" }, ...PAD.map(pegButton),
      more ? el("div", { class: "num" }, ...MORE.map(pegButton), num, el("button", {
        type: "button", text: "Peg", "aria-label": `Peg the number for ${side.name}`, disabled: !padOpen,
        onclick: () => pegNumber(i, num),
      })) : null);
    const hasPad = !(game.mode === "cards" || (!padOpen && showing));
    const moreBtn = hasPad ? el("button", { type: "button", class: "more write", text: more ? "Less" : "More",
      "aria-expanded": String(more), "aria-label": more ? `Less: fewer pegs for ${side.name}` : `More pegs for ${side.name}: 12 or a number`,
      onclick: () => { state.padMore = { ...(state.padMore || {}), [i]: !more }; renderGame(); } }) : null;
    const panel = el("article", { class: "side", style: `--c:${sideColour(i)}`, "data-side": String(i), "aria-label": side.name },
      el("header", {},
        el("span", { class: "who" }, el("span", { class: "name-line" }, el("span", { class: "name", text: side.name }),
          el("span", { class: "tags", text: tags.join(" · "), "data-tags": tags.join(" ") })),
        el("span", { class: "back", "data-back": String(side.back), text: `back peg ${side.back}` + gamesWon(game, i) })),
        el("span", { class: "heels-slot" }),
        el("span", { class: "score", text: String(side.front), "data-front": String(side.front) }), moreBtn),
      hasPad ? pad : null);
    sides.append(panel);
  });
  sides.classList.toggle("compact", game.mode === "cards");
  sides.style.setProperty("--n", String(game.sides.length));
  const closed = $("#peg-closed");
  closed.hidden = !(showing && !pegOpen && game.mode !== "cards" && !over);
  if (closed.hidden) closed.replaceChildren();
  else if (lateOpen) {
    closed.replaceChildren(el("button", { type: "button", class: "secondary write", id: "late-peg-btn", "aria-expanded": String(!!state.lateShown),
      text: state.lateShown ? "Done with late pegs" : "Forgot a peg in the play? Peg it late",
      onclick: () => { state.lateShown = !state.lateShown; renderGame(); } }));
  } else {
    closed.textContent = "Pegging closed when the counting began. A forgotten peg: Undo the counts back to the play, peg it, and count again.";
  }
}

// The hand, its dealer, the counts to come and the starter; his heels on the dealer's panel.
function renderDue(game, legal, over) {
  // The next count due, in show order, and the starter once it is cut.
  const due = $("#due");
  const order = (game.show_order || []).filter((x) => !x.done).map((x) => x.label);
  const dealerName = game.dealer !== null && game.dealer !== undefined ? game.names[game.dealer] : null;
  // The five-card game gives the pone points before the first deal (the engine's non_dealer_start):
  // said on the first hand, or a score of 3 out of nowhere puzzles the table.
  const rules = variantRules(game.variant);
  const start = rules && rules.non_dealer_start && game.hand_number === 1 && dealerName && game.phase === "play" ?
    ` ${game.names[(game.dealer + 1) % game.names.length]} starts with ${rules.non_dealer_start}.` : "";
  const hand = dealerName ? `Hand ${game.hand_number}: ${dealerName} deals.${start} ` : "";
  if (over) due.textContent = "";
  else if (order.length) due.textContent = `${hand}${game.phase === "play" ? "After the play: " : "Now: "}${order.join(", then ")}.`;
  else due.textContent = game.phase === "cut" ? "Cut for deal." : hand;
  const starter = $("#starter");
  starter.hidden = !game.starter || over;
  starter.replaceChildren(...(game.starter ? ["Starter ", el("span", { class: isRed(game.starter) ? "red" : "", "aria-label": spoken(game.starter), text: pretty(game.starter) })] : []));
  // His heels, when due, on the dealer's own line (the points are the dealer's): at the top of
  // that side's panel, so that no pad pushes it out of sight.
  const heels = $("#heels-btn");
  const slot = game.dealer === null || game.dealer === undefined ? null :
    $(`#sides .side[data-side="${sideOfPlayer(game, game.dealer)}"] .heels-slot`);
  heels.hidden = game.mode === "cards" || over || !legal.has("heels") || !slot;
  if (!heels.hidden) slot.append(heels);
  $("#cut-now").hidden = over || !legal.has("cut");
}

// The count due: the count pad (keeper mode), or the way to the Count tab (cards mode).
function renderShowEntry(game, legal, over) {
  const showing = game.phase === "show";
  const next = game.next_count;
  $("#count-label").textContent = next ? `Count for ${next.label}` : "Count";
  $("#count-input").setAttribute("aria-label", next ? `Count for ${next.label}` : "Count");
  $("#count-19").setAttribute("aria-label", next ? `19, nothing: ${next.label} is a zero hand` : "19, nothing: a zero hand");
  // Cards mode counts on the Score screen by the cards; with muggins on, on the Count tab, where
  // the player's own count is typed.
  $("#show-entry").hidden = over || !next || !legal.has("count") || (game.mode === "cards" && !game.muggins);
  if (game.mode === "cards") {
    $("#count-input").hidden = true; $("#count-19").hidden = true; $("#count-pad").hidden = true;
    $("#count-after-pad").hidden = true; $("#count-after-label").hidden = true;
    $("#count-send").textContent = next ? `Count ${next.label} on the Count tab` : "Count";
  } else {
    $("#count-input").hidden = false; $("#count-19").hidden = false; $("#count-send").textContent = "Count";
    renderCountPad(game, next);
  }
  // Bug 14: in the show the count comes first, above the panels; in the play the pegging pads do.
  const box = $("#game");
  if (showing) box.insertBefore($("#show-entry"), $("#sides"));
  else box.insertBefore($("#show-entry"), $("#peg-closed").nextSibling);
  // The muggins box follows the count it is about, so with muggins on the next count's pad
  // stays in view instead of scrolling off above a box at the foot of the screen.
  box.insertBefore($("#muggins-box"), $("#show-entry").nextSibling);
}

// Undo, redo, the hint and the next game.
function renderButtons(game, legal, over, cards) {
  // In cards mode the cards' box has its own hint; otherwise the hint is the discard.
  $("#hint-btn").hidden = cards && !legal.has("starter");
  $("#undo-btn").disabled = !game.can_undo;
  $("#redo-btn").disabled = !game.can_redo;
  $("#next-game").hidden = !over || !legal.has("next_game");
}

function pegNumber(side, input) {
  const v = Number(input.value);
  if (input.value.trim() === "" || !Number.isInteger(v) || v <= 0) { toast("Type the points to peg, then tap Peg."); return; }
  act({ type: "peg", side, points: v });
}

// The count pad: one button per total the engine says this hand (or crib) can make, so a
// count is one tap and an impossible total is not there to tap. Without the engine's list
// the pad stays empty and the number field does the work.
function renderCountPad(game, next) {
  fillCountPad($("#count-pad"), game, next, (n) => `${n} for ${next.label}`, (n) => sendCount(n));
  // A zero hand is said by the next count: the pad of the count after the one due takes it
  // ("nothing for Bob, 6 for Cy": one tap, the engine's nineteens). With muggins on each
  // count is entered in turn, so a nothing can be called. In the play the pegging pads leave
  // it no room above the fold: it comes with the show, when the count pads are on top.
  const order = (game.show_order || []).filter((x) => !x.done);
  const room = game.phase === "show";
  const label = $("#count-after-label");
  const pad = $("#count-after-pad");
  // The dealer's hand due: the crib comes next with nothing between them, so the engine takes
  // the two as one total (its `count_with_crib`, "Ann's hand and crib"): one tap for both. Its
  // pad stands where the pad after the count due would, and covers it (a hand of nothing and
  // a crib of 6 are a total of 6).
  const both = room ? game.count_with_crib || null : null;
  pad.classList.toggle("both", !!both);
  if (both) {
    label.hidden = false;
    label.textContent = `Or ${both.label} in one total:`;
    fillCountPad(pad, game, both, (n) => `${n} for ${both.label}`, (n) => sendCount(n, 0, true), "both");
    return;
  }
  const after = next && !game.muggins && room && order.length > 1 ? order[1] : null;
  label.hidden = !after;
  label.textContent = after ? `${next.label} nothing? Count ${after.label}:` : "";
  fillCountPad(pad, game, after, (n) => `${n} for ${after.label}, ${next.label} nothing`,
    (n) => sendCount(n, 1), next ? next.label : "");
}

// One pad of count buttons: every total the engine says `entry` (a hand or the crib) can
// make; none without the engine's list.
function fillCountPad(pad, game, entry, name, send, also = "") {
  const counts = entry ? possibleCounts(game.variant, entry.kind) : null;
  pad.hidden = !counts;
  const key = counts ? `${also}/${entry.label}/${counts.join(",")}` : "";
  if (pad.dataset.key === key) return;
  pad.dataset.key = key;
  if (!counts) { pad.replaceChildren(); return; }
  pad.replaceChildren(...counts.map((n) => el("button", {
    type: "button", class: "count-n", "data-points": String(n), text: String(n),
    "aria-label": name(n), onclick: () => send(n),
  })));
}

function renderMuggins(game, legal) {
  const box = $("#muggins-box");
  const last = game.last_count;
  if (!game.muggins || !last || !legal.has("muggins")) { box.hidden = true; box.replaceChildren(); box.dataset.key = ""; return; }
  // Rebuilt only when the count changes, so a number being typed survives live updates.
  const key = `${game.id}/${game.hand_number}/${last.label}/${last.points}/${last.claimed}`;
  const opening = box.hidden;
  box.hidden = false;
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  // Bug 11: the muggins box opens in view, not below the fold.
  if (opening) requestAnimationFrame(() => box.scrollIntoView({ block: "nearest" }));
  const claimers = game.sides.map((s, i) => i).filter((i) => i !== last.side);
  const missed = last.missed ?? null;
  const input = el("input", { inputmode: "numeric", maxlength: 2, "aria-label": "Points missed", value: missed ?? "", placeholder: "pts" });
  const counted = last.points + (last.claimed || 0);
  // A zero hand is "19 (nothing)", as the toast said it.
  const was = last.points === 0 ? "19 (nothing)" : String(last.points);
  const text = missed !== null ?
    `${last.label} was counted ${was} but makes ${counted + missed}: ${missed} missed. Muggins!` :
    `${last.label} was counted ${was}${last.claimed ? ` (+${last.claimed} claimed)` : ""}. Missed points? Call muggins:`;
  box.replaceChildren(el("p", { class: "muggins-text", text }),
    el("div", { class: "row write" }, input, ...claimers.map((i) => el("button", {
      type: "button", class: "secondary", "data-side": String(i), text: `Muggins for ${game.sides[i].name}`,
      onclick: () => {
        const v = Number(input.value);
        if (!Number.isInteger(v) || v <= 0) { toast("Type the points the count missed, then tap Muggins."); return; }
        act({ type: "muggins", side: i, points: v });
      },
    }))));
}

// The count due (after `nineteens` counts of nothing, when given; with the crib as one total
// when `withCrib`).
function sendCount(points, nineteens = 0, withCrib = false) {
  const game = state.game;
  if (!game || !game.next_count) return;
  if (game.mode === "cards") { openDueCount(); return; }
  if (!Number.isInteger(points) || points < 0) { toast("Type the count, then tap Count."); return; }
  const count = { type: "count", points };
  if (nineteens) count.nineteens = nineteens;
  if (withCrib) count.with_crib = true;
  act(count);
  $("#count-input").value = "";
}

// The screen's controls, wired once the page has loaded.
export function mount() {
  subscribe(["game"], renderGame);
  // Bug 9: a form, so Enter on the phone's keyboard sends the count as the button does.
  $("#count-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    if (state.game && state.game.mode === "cards") { openDueCount(); return; }
    const v = $("#count-input").value.trim();
    sendCount(v === "" ? NaN : Number(v));
  });
  $("#count-19").addEventListener("click", () => sendCount(19));
  // A game started without a dealer (on another phone, or by the API) is cut for here.
  $("#cut-now").addEventListener("click", async () => {
    if (!state.game) return;
    if (!state.token) { publish("pair"); return; }
    try { setGame(await cutForDeal(state.game)); } catch (err) { toast(sayOf(err), null, 6); }
  });
  $("#heels-btn").addEventListener("click", () => act({ type: "heels" }));
  $("#undo-btn").addEventListener("click", () => act({ type: "undo" }, { quiet: true }));
  $("#redo-btn").addEventListener("click", () => act({ type: "redo" }, { quiet: true }));
  $("#next-game").addEventListener("click", () => act({ type: "next_game" }, { quiet: true }));
  // The Score tab's hint: during the play in cards mode, the pegging hint; else which two to throw.
  $("#hint-btn").addEventListener("click", () => {
    const game = state.game;
    if (game && game.mode === "cards" && (game.legal || []).includes("play")) { state.hint.open = true; renderGame(); $("#play-hint").scrollIntoView({ block: "nearest" }); return; }
    openCountTab("advise");
  });
  $("#end-game").addEventListener("click", () => {
    if (state.game && !state.game.result && !confirm("Leave this game and start a new one?")) return;
    state.leftGameId = state.game ? state.game.id : null; state.game = null; publish("game");
  });
}

export { renderGame as render };
