// A tap sent to the game: the version seen, an operation id, retries, the toast with Undo.
// A tap is kept in the browser's storage until the table has answered it, so that closing the
// page while the network is down loses nothing; a tap refused because another phone changed
// the game first is kept with its "Apply now" until the player answers it.
import { drawCut, pretty } from "./cards.js";
import { resultText } from "./game.js";
import { $, el } from "./dom.js";
import { answered, eventWords, ownStep, resultOf, sending } from "./announce.js";
import { api, opId, sayOf, whenLive } from "./net.js";
import { say, spokenEvents } from "./speech.js";
import { publish, setGame, state, subscribe } from "./store.js";
import { toast } from "./toast.js";

// A tap in words before the engine has answered it (a tap waiting to be sent, or refused
// because the game moved on): what the person asked for, not what it did.
function tapWords(a, game) {
  const side = (i) => (game && game.sides[i] ? game.sides[i].name : `side ${i + 1}`);
  const player = (p) => (game && game.names && game.names[p]) || "";
  const due = game && game.next_count ? game.next_count.label : "the count";
  switch (a.type) {
    case "play": return `${player(a.player)} plays the ${pretty(a.card)}`;
    case "go": return `${player(a.player)} says go`;
    case "peg": return `+${a.points} for ${side(a.side)}`;
    case "late_peg": return `late peg: +${a.points} for ${side(a.side)}`;
    case "count": return a.cards ? `${due}: ${a.cards.map(pretty).join(" ")}` : countWords(a, game, due);
    case "heels": return "two for his heels";
    case "muggins": return `muggins, ${a.points} for ${side(a.side)}`;
    case "starter": return `starter ${pretty(a.card)}`;
    default: return a.type;
  }
}

// A count by points, after the nothings it takes ("Bob's hand: 19 (nothing), Cy's hand: 8"),
// or the dealer's hand and crib as one total ("Ann's hand and crib: 19": a total, not nothing).
function countWords(a, game, due) {
  const both = a.with_crib ? ((game && game.count_with_crib) || {}).label || `${due} and crib` : null;
  const points = (p) => (both ? p : p === 0 || p === 19 ? "19 (nothing)" : p);
  const order = ((game && game.show_order) || []).filter((x) => !x.done).map((x) => x.label);
  const skipped = order.slice(0, a.nineteens || 0);
  const counted = both || (a.nineteens ? order[a.nineteens] || "the count after them" : due);
  return [...skipped.map((label) => `${label}: 19 (nothing)`), `${counted}: ${points(a.points)}`].join(", ");
}

// The taps not yet answered, kept in the browser's storage: {gameId, body, words}.
const KEPT = "crib.outbox";
const REFUSED = "crib.refused";
function keep() {
  const waiting = state.outbox.filter((e) => e.body).map(({ gameId, body, words }) => ({ gameId, body, words }));
  localStorage.setItem(KEPT, JSON.stringify(waiting));
  localStorage.setItem(REFUSED, JSON.stringify(state.conflicts));
}
function kept(key) { try { return JSON.parse(localStorage.getItem(key) || "[]"); } catch { return []; } }

// Taps run one after another: a tap queued behind this phone's own tap is based on the
// version that tap produced, so quick taps never conflict with each other. Each tap is in
// `state.outbox` until the daemon has answered, so that the page can say which are waiting.
let actQueue = Promise.resolve();
function enqueue(entry, run) {
  state.outbox.push(entry);
  publish("outbox");
  const done = actQueue.then(run).finally(() => {
    const i = state.outbox.indexOf(entry);
    if (i >= 0) state.outbox.splice(i, 1);
    keep();
    publish("outbox");
  });
  actQueue = done.catch(() => {});
  return done;
}
// `action` is the action, or a function of the game that makes it when the tap's turn comes:
// a tap made before this phone's earlier tap is answered is then read against the game that
// answer brought (the second of two quick taps on the picker is a card played, not a second
// starter).
export function act(action, opts = {}) {
  const seen = state.game ? state.game.version : null;
  const make = typeof action === "function" ? action : () => action;
  const guess = state.game ? make(state.game) : null;
  const entry = { words: guess ? tapWords(guess, state.game) : "a tap", waiting: false, body: null, gameId: null };
  return enqueue(entry, () => {
    const game = state.game;
    if (!game) return null;
    if (!state.token) { publish("pair"); return null; }
    action = make(game);
    if (!action) return null; // nothing this tap can do in the game as it is now
    // The version the player saw, unless this phone's own earlier tap moved it on since.
    const version = state.ownVersion !== null && state.ownVersion === game.version ? game.version : (seen ?? game.version);
    entry.body = { version, op_id: opId(), action };
    entry.gameId = game.id;
    keep();
    return send(entry, opts);
  });
}

// Taps kept from before the page was closed, sent once the table is live again (the same
// operation ids: the daemon applies each once, and answers a repeat with its first answer).
let resumed = false;
function resume() {
  if (resumed || !state.live) return;
  resumed = true;
  for (const k of kept(KEPT)) {
    if (!k || !k.body || !k.body.action) continue;
    const entry = { words: k.words, waiting: true, body: k.body, gameId: k.gameId };
    enqueue(entry, () => send(entry, {}));
  }
  const game = state.game;
  state.conflicts = kept(REFUSED).filter((c) => c && c.action && game && c.gameId === game.id);
  keep();
  publish("outbox");
}

async function send(entry, opts = {}) {
  // The stream's steps wait until this tap is answered: its own step is shown by the tap.
  sending();
  let game = null;
  try { game = await sendOnce(entry, opts); } finally { answered(game); }
  return game;
}
async function sendOnce(entry, { quiet = false, unspoken = false, prefix = "", onWords = null, skip = [] }) {
  const { body, gameId } = entry;
  const action = body.action;
  const before = state.game;
  for (let attempt = 0; ; attempt++) {
    let out = null;
    try {
      out = await api("POST", `/api/games/${gameId}/actions`, body);
    } catch (err) {
      // Lost on the way: kept, and the very same operation sent again (the daemon applies
      // it once, and refuses it if the game changed meanwhile): soon while the link is up,
      // else as soon as it is back.
      if (err.network) {
        if (!entry.waiting) { entry.waiting = true; publish("outbox"); }
        if (state.live && attempt < 3) await sleep(400 * (attempt + 1));
        else await whenLive();
        continue;
      }
      refused(err, action, gameId);
      return null;
    }
    ownStep(out.game);
    state.ownVersion = out.game.version;
    setGame(out.game);
    announce(out, action, before, { quiet, unspoken, prefix, onWords, skip });
    return out.game;
  }
}

// This phone's own tap, shown with its Undo and said by the phone that speaks.
function announce(out, action, game, { quiet, unspoken, prefix, onWords, skip }) {
  // `skip`: kinds of event not worth saying for this tap (nobody says go for the last card).
  const events = (Array.isArray(out.events) ? out.events : []).filter((e) => !skip.includes(e.kind));
  const words = eventWords(events) || tapWords(action, out.game);
  if (onWords) onWords(events);
  const lead = prefix ? `${prefix} ` : ""; // what an earlier request of the same tap did
  if (!quiet && !["undo", "redo", "next_game"].includes(action.type)) {
    const at = out.game.version;
    // The toast says the count the pad moved on to, and the result when the engine's words
    // have not said it.
    toast(`${lead}${words}${afterTap(out.game, game, events)}`, { label: "Undo", run: () => undoIfStill(at) }, 5);
    if (!unspoken) say(lead + spokenEvents(events) + resultOf(out.game, events));
  } else if (action.type === "undo" || action.type === "redo") {
    // The toast of the tap just taken back (with its own Undo) would be out of date; the
    // undo is said, so that a corrected count is not heard as two totals.
    toast(words, null, 3);
    say(spokenEvents(events));
  }
}

function refused(err, action, gameId) {
  if (err.status === 409 && err.data && err.data.game) {
    setGame(err.data.game);
    // Kept, in the page (never over the header), until the player applies or drops it.
    state.conflicts.push({ id: opId(), gameId, action, words: tapWords(action, err.data.game) });
    keep();
    publish("outbox");
  } else if (err.status === 401) {
    publish("pair");
  } else {
    if (err.data && err.data.game) setGame(err.data.game);
    toast(sayOf(err), null, 8);
  }
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// What a tap led to that the toast hides: the result (unless the events said it), or the
// count the pad moved on to.
function afterTap(game, before, events = []) {
  if (game.result && !(before && before.result)) return events.some((e) => e.kind === "game_over") ? "" : ` ${resultText(game)}.`;
  const next = game.next_count;
  const was = before && before.next_count;
  if (next && was && next.label !== was.label && game.phase === "show") return ` Next: ${next.label}.`;
  return "";
}

function undoIfStill(version) {
  // The five-second undo takes back this tap only, never someone else's newer one.
  if (!state.game || state.game.version !== version) { toast("Not undone: the game has moved on since."); return; }
  act({ type: "undo" }, { quiet: true });
}

function answerConflict(id, apply) {
  const c = state.conflicts.find((x) => x.id === id);
  state.conflicts = state.conflicts.filter((x) => x.id !== id);
  keep();
  publish("outbox");
  if (c && apply) act(c.action);
}

// The taps kept while the link is down, said in words (the player knows what will be sent),
// and each refused tap with its two answers.
function renderOutbox() {
  const box = $("#outbox");
  const waiting = state.outbox.filter((e) => e.waiting || !state.live).map((e) => e.words);
  const game = state.game;
  const conflicts = state.conflicts.filter((c) => game && c.gameId === game.id);
  box.hidden = !waiting.length && !conflicts.length;
  box.replaceChildren(
    waiting.length ? el("p", { text: `Waiting to send, kept until the table answers: ${waiting.join("; ")}.` }) : "",
    ...conflicts.map((c) => el("div", { class: "refused", "data-refused": c.id },
      el("p", { text: `Not applied: the game changed on another phone first (${c.words}). Check the scores; apply it if it still holds.` }),
      el("div", { class: "row write" },
        el("button", { type: "button", class: "primary", text: "Apply now", onclick: () => answerConflict(c.id, true) }),
        el("button", { type: "button", class: "secondary", text: "Drop it", onclick: () => answerConflict(c.id, false) })))));
}

export function mount() {
  subscribe(["link", "outbox", "game"], renderOutbox);
  subscribe(["link", "all"], resume);
}

// The cut for deal: the phone draws a card per player; the engine says who deals and refuses a
// tie, which is cut again.
export async function cutForDeal(game) {
  for (let tries = 0; tries < 12; tries++) {
    const cards = drawCut(game.names.length);
    sending(); // its step is shown here, not again from the stream
    let out = null;
    try {
      out = await api("POST", `/api/games/${game.id}/actions`, { version: game.version, op_id: opId(), action: { type: "cut", cards } });
      const after = out.game;
      toast(cards.map((c, i) => `${game.names[i]} ${pretty(c)}`).join(", ") + ` — ${after.names[after.dealer]} deals.`, null, 6);
      return after;
    } catch (err) {
      if (err.status !== 422) throw err;
      if (err.data && err.data.game) game = err.data.game; // a tie: cut again
    } finally {
      answered(out ? out.game : null);
    }
  }
  throw new Error("the cut tied too often; choose the dealer");
}

