// A tap sent to the game: the version seen, an operation id, retries, the toast with Undo.
import { pretty } from "./cards.js";
import { resultText, sideOfPlayer } from "./game.js";
import { api, opId, sayOf, whenLive } from "./net.js";
import { speak, speakAll, spokenAction } from "./speech.js";
import { publish, state } from "./store.js";
import { capital, toast } from "./toast.js";
import { openPairing } from "../screens/pairing.js";

// What the play engine pegged since `before` (cards mode), in words: "Ann pegs 2: fifteen two".
export function peggedSince(before, game) {
  const old = (before && before.play && before.play.say) || [];
  const now = (game && game.play && game.play.say) || [];
  if (!before || !game || before.id !== game.id || now.length < old.length) return "";
  const notes = now.slice(old.length);
  if (notes.length > 1 && notes.every((n) => n.player === notes[0].player)) {
    // One player's points together: "Ann pegs 4: twenty-four, a run of three for three; one for last".
    const total = notes.reduce((t, n) => t + n.points, 0);
    return `${game.names[notes[0].player]} pegs ${total}: ${notes.map((n) => n.say).join("; ")}`;
  }
  return notes.map((n) => `${game.names[n.player]} pegs ${n.points}: ${n.say}`).join("; ");
}

// A starter the engine pegged his heels for (cards mode): " — two for his heels to Ann".
export function heelsPegged(game, before) {
  if (!game || !before || before.id !== game.id || game.dealer === null || game.dealer === undefined) return "";
  const side = sideOfPlayer(game, game.dealer);
  const gained = game.sides[side] && before.sides[side] ? game.sides[side].front - before.sides[side].front : 0;
  return gained > 0 ? ` — two for his heels to ${game.names[game.dealer]}` : "";
}

export function describeAction(a, game, before = null) {
  const side = (i) => game && game.sides[i] ? game.sides[i].name : `side ${i + 1}`;
  const player = (p) => (game && game.names && game.names[p]) || "";
  const pegged = peggedSince(before, game);
  // The count that was due when the tap was made: "Ann's hand: 19 (nothing)".
  const due = before && before.next_count ? before.next_count.label : (game && game.last_count ? game.last_count.label : "count");
  const counted = game && game.last_count && before && game.version > before.version ? game.last_count.points : a.points;
  switch (a.type) {
    case "play": return `${pretty(a.card)} played` + (pegged ? ` — ${pegged}` : "");
    case "go": return (player(a.player) ? `${player(a.player)} says go` : "go") + (pegged ? ` — ${pegged}` : "");
    case "peg": return `+${a.points} for ${side(a.side)}`;
    case "late_peg": return `late peg: +${a.points} for ${side(a.side)}`;
    case "count": {
      const n = a.cards ? counted : a.points;
      return n === 19 || (n === 0 && a.points === 19) ? `${due}: 19 (nothing)` : n === 0 ? `${due}: 0 (nothing)` : `${due}: ${n}`;
    }
    case "heels": return `two for his heels to ${game && game.dealer !== null && game.dealer !== undefined ? player(game.dealer) : "the dealer"}`;
    case "muggins": return `muggins, ${a.points} for ${side(a.side)}`;
    case "starter": return `starter ${pretty(a.card)}${heelsPegged(game, before)}`;
    default: return a.type;
  }
}

// Taps run one after another: a tap queued behind this phone's own tap is based on the
// version that tap produced, so quick taps never conflict with each other. Each tap is in
// `state.outbox` until the daemon has answered, so that the page can say which are waiting.
let actQueue = Promise.resolve();
export function act(action, opts = {}) {
  const seen = state.game ? state.game.version : null;
  const entry = { words: describeAction(action, state.game), waiting: false };
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

async function actNow(action, { quiet = false, unspoken = false, prefix = "" } = {}, seen = null, entry = { waiting: false }) {
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
      if (!quiet && !["undo", "redo", "next_game"].includes(action.type)) {
        const at = out.game.version;
        // The toast covers the top of the screen for five seconds, where the result and the
        // next count are written: it says them itself.
        const then = afterTap(out.game, game);
        // `prefix`: what an earlier request of the same tap pegged (one for last, then the lead).
        toast(`${prefix ? `${capital(prefix)}. ` : ""}${capital(describeAction(action, out.game, game))}${then}`, { label: "Undo", run: () => undoIfStill(at) }, 5);
        if (speakAll() && !unspoken) speak((prefix ? `${prefix}. ` : "") + spokenAction(action, out.game, game) + (out.game.result && !game.result ? `. ${resultText(out.game)}` : ""));
      } else if (action.type === "undo" || action.type === "redo") {
        // The toast of the tap just taken back (with its own Undo) would be out of date.
        const moved = scoreChanges(game, out.game);
        toast(`${action.type === "undo" ? "Undone" : "Redone"}${moved ? `: ${moved}` : ""}.`, null, 3);
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
        toast(`Not applied: the game changed on another phone first (${describeAction(action, err.data.game)}). Check the scores and tap again if it still applies.`,
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

// What a tap led to that the toast hides: the result, or the count the pad moved on to.
export function afterTap(game, before) {
  if (game.result && !(before && before.result)) return `. ${resultText(game)}`;
  const next = game.next_count;
  const was = before && before.next_count;
  if (next && was && next.label !== was.label && game.phase === "show") return `. Next: ${next.label}`;
  return "";
}
// "Ann 12 → 8": each side whose score an undo or redo moved.
export function scoreChanges(before, game) {
  if (!before || !game || before.id !== game.id) return "";
  return game.sides.map((s, i) => (before.sides[i] && before.sides[i].front !== s.front ? `${s.name} ${before.sides[i].front} → ${s.front}` : ""))
    .filter(Boolean).join(", ");
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
