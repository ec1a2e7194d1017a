// A tap sent to the game: the version seen, an operation id, retries, the toast with Undo.
import { pretty } from "./cards.js";
import { resultText } from "./game.js";
import { api, opId, sayOf, whenLive } from "./net.js";
import { speak, speakAll, spokenEvents } from "./speech.js";
import { publish, state } from "./store.js";
import { capital, toast } from "./toast.js";
import { openPairing } from "../screens/pairing.js";

// What a tap did, in the engine's own words: the `say` of each event of its step, in order,
// once each ("Ann plays the 5♠: 15. Ann pegs 2: fifteen two."). No game views are compared.
export function eventWords(events) {
  const says = [];
  for (const e of events || []) {
    const say = String((e && e.say) || "").trim();
    if (say && !says.includes(say)) says.push(say);
  }
  return says.join(" ");
}

// A tap in words before the engine has answered it (a tap waiting to be sent, or refused
// because the game moved on): what the person asked for, not what it did.
export function tapWords(a, game) {
  const side = (i) => (game && game.sides[i] ? game.sides[i].name : `side ${i + 1}`);
  const player = (p) => (game && game.names && game.names[p]) || "";
  const due = game && game.next_count ? game.next_count.label : "the count";
  switch (a.type) {
    case "play": return `${player(a.player)} plays the ${pretty(a.card)}`;
    case "go": return `${player(a.player)} says go`;
    case "peg": return `+${a.points} for ${side(a.side)}`;
    case "late_peg": return `late peg: +${a.points} for ${side(a.side)}`;
    case "count": return a.cards ? `${due}: ${a.cards.map(pretty).join(" ")}` : `${due}: ${a.points === 0 || a.points === 19 ? "19 (nothing)" : a.points}`;
    case "heels": return "two for his heels";
    case "muggins": return `muggins, ${a.points} for ${side(a.side)}`;
    case "starter": return `starter ${pretty(a.card)}`;
    default: return a.type;
  }
}

// Taps run one after another: a tap queued behind this phone's own tap is based on the
// version that tap produced, so quick taps never conflict with each other. Each tap is in
// `state.outbox` until the daemon has answered, so that the page can say which are waiting.
let actQueue = Promise.resolve();
export function act(action, opts = {}) {
  const seen = state.game ? state.game.version : null;
  const entry = { words: tapWords(action, state.game), waiting: false };
  state.outbox.push(entry);
  publish("outbox");
  const run = actQueue.then(() => actNow(action, opts, seen, entry)).finally(() => {
    const i = state.outbox.indexOf(entry);
    if (i >= 0) state.outbox.splice(i, 1);
    publish("outbox");
  });
  actQueue = run.catch(() => {});
  return run;
}

async function actNow(action, { quiet = false, unspoken = false, prefix = "", onWords = null, skip = [] } = {}, seen = null, entry = { waiting: false }) {
  const game = state.game;
  if (!game) return null;
  if (!state.token) { openPairing(); return null; }
  // The version the player saw, unless this phone's own earlier tap moved it on since.
  const version = state.ownVersion !== null && state.ownVersion === game.version ? game.version : (seen ?? game.version);
  const body = { version, op_id: opId(), action };
  for (let attempt = 0; ; attempt++) {
    try {
      const out = await api("POST", `/api/games/${game.id}/actions`, body);
      state.ownVersion = out.game.version;
      setGame(out.game);
      // `skip`: kinds of event not worth saying for this tap (nobody says go for the last card).
      const events = (Array.isArray(out.events) ? out.events : []).filter((e) => !skip.includes(e.kind));
      const words = eventWords(events) || tapWords(action, out.game);
      if (onWords) onWords(events);
      if (!quiet && !["undo", "redo", "next_game"].includes(action.type)) {
        const at = out.game.version;
        // The toast says the count the pad moved on to, and the result when the engine's words
        // have not said it.
        const then = afterTap(out.game, game, events);
        // `prefix`: what an earlier request of the same tap did (one for last, then the lead).
        toast(`${prefix ? `${prefix} ` : ""}${words}${then}`, { label: "Undo", run: () => undoIfStill(at) }, 5);
        // Spoken: what happened, and the result if the engine's words did not say it.
        const result = out.game.result && !game.result && !events.some((e) => e.kind === "game_over") ? ` ${resultText(out.game)}.` : "";
        if (speakAll() && !unspoken) speak((prefix ? `${prefix} ` : "") + spokenEvents(events, out.game) + result);
      } else if (action.type === "undo" || action.type === "redo") {
        // The toast of the tap just taken back (with its own Undo) would be out of date.
        toast(words, null, 3);
      }
      return out.game;
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
      if (err.status === 409 && err.data && err.data.game) {
        setGame(err.data.game);
        toast(`Not applied: the game changed on another phone first (${tapWords(action, err.data.game)}). Check the scores and tap again if it still applies.`,
          { label: "Apply now", run: () => act(action) }, 8);
      } else if (err.status === 401) {
        openPairing();
      } else {
        if (err.data && err.data.game) setGame(err.data.game);
        toast(err.network ? "Not sent: the table's computer cannot be reached. Try again when it is back." : sayOf(err), null, 8);
      }
      return null;
    }
  }
}
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// What a tap led to that the toast hides: the result (unless the events said it), or the
// count the pad moved on to.
export function afterTap(game, before, events = []) {
  if (game.result && !(before && before.result)) return events.some((e) => e.kind === "game_over") ? "" : ` ${resultText(game)}.`;
  const next = game.next_count;
  const was = before && before.next_count;
  if (next && was && next.label !== was.label && game.phase === "show") return ` Next: ${next.label}.`;
  return "";
}

export function undoIfStill(version) {
  // The five-second undo takes back this tap only, never someone else's newer one.
  if (!state.game || state.game.version !== version) { toast("Not undone: the game has moved on since."); return; }
  act({ type: "undo" }, { quiet: true });
}

export function setGame(game) {
  if (game && state.game && game.id === state.game.id && game.version < state.game.version) return; // stale echo
  if (game && state.leftGameId === game.id) return; // this phone left that game for the new-game form
  state.game = game;
  state.lastUpdate = Date.now();
  publish("game");
}
