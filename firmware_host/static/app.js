// The phone page: one module, no build step, no request leaves the Pi.
// Live state comes over /api/events; every write carries the game version and a client
// operation id so that a tap is applied once and a conflicting tap is reconciled.

const $ = (sel, root = document) => root.querySelector(sel);
const $$ = (sel, root = document) => [...root.querySelectorAll(sel)];
const el = (tag, attrs = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
};
const SVG = "http://www.w3.org/2000/svg";
const svg = (tag, attrs = {}) => {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
};

const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
const SUITS = [["S", "♠"], ["H", "♥"], ["D", "♦"], ["C", "♣"]];
const RANK_WORDS = { A: "ace", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight",
  9: "nine", 10: "ten", J: "jack", Q: "queen", K: "king" };
const SUIT_WORDS = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
// What a screen reader says for a card: "four of clubs", never "4C".
const spoken = (c) => `${RANK_WORDS[c.slice(0, -1)] || c.slice(0, -1)} of ${SUIT_WORDS[c.slice(-1)] || c.slice(-1)}`;
const pretty = (c) => {
  const suit = c.slice(-1);
  const glyph = (SUITS.find(([s]) => s === suit) || [suit, suit])[1];
  return c.slice(0, -1) + glyph;
};
const isRed = (c) => c.endsWith("H") || c.endsWith("D");

// Operation ids: crypto.randomUUID needs a secure context, which plain HTTP on a LAN is not.
const opId = () => [...crypto.getRandomValues(new Uint8Array(16))]
  .map((b) => b.toString(16).padStart(2, "0")).join("");

const S = {
  token: localStorage.getItem("crib.token") || "",
  ownVersion: null,
  shufflerSeen: 0,
  tokenName: localStorage.getItem("crib.phone") || "",
  leftGameId: null,
  game: null,
  board: null,
  shuffler: null,
  devices: {},
  plans: {},
  lastUpdate: 0,
  live: false,
  seq: 0,
  pending: false,
  spoken: [],
};
window.cribState = S; // for the browser tests and curious players

// ---------------------------------------------------------------- HTTP
async function api(method, path, body) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (S.token) headers.Authorization = `Bearer ${S.token}`;
  let res;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (cause) {
    const err = new Error("the table's computer cannot be reached");
    err.network = true;
    throw err;
  }
  let data = null;
  try { data = await res.json(); } catch { data = null; }
  if (!res.ok) {
    const err = new Error((data && (data.error || data.detail)) || `${res.status} ${res.statusText}`);
    err.status = res.status;
    err.data = data;
    // The sentence for the table (the engine's `say`); the developer detail stays in err.message.
    err.say = data && typeof data.say === "string" && data.say ? data.say : "";
    if (typeof err.message !== "string") err.message = JSON.stringify(err.message);
    if (res.status === 401 && S.token) forgetToken("This phone's pairing is no longer valid: pair it again.");
    throw err;
  }
  return data;
}

const sayOf = (err) => err.say || err.message;

// ---------------------------------------------------------------- toast
let toastTimer = 0;
function toast(text, action, seconds = 4) {
  const t = $("#toast");
  t.replaceChildren(el("span", { text }));
  if (action) t.append(el("button", { type: "button", class: "write", text: action.label, onclick: () => { t.hidden = true; action.run(); } }));
  t.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { t.hidden = true; }, seconds * 1000);
}

// ---------------------------------------------------------------- game actions
// What the play engine pegged since `before` (cards mode), in words: "Ann pegs 2: fifteen two".
function peggedSince(before, game) {
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
function heelsPegged(game, before) {
  if (!game || !before || before.id !== game.id || game.dealer === null || game.dealer === undefined) return "";
  const side = sideOfPlayer(game, game.dealer);
  const gained = game.sides[side] && before.sides[side] ? game.sides[side].front - before.sides[side].front : 0;
  return gained > 0 ? ` — two for his heels to ${game.names[game.dealer]}` : "";
}

function describeAction(a, game, before = null) {
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
// version that tap produced, so quick taps never conflict with each other.
let actQueue = Promise.resolve();
function act(action, opts = {}) {
  const seen = S.game ? S.game.version : null;
  const run = actQueue.then(() => actNow(action, opts, seen));
  actQueue = run.catch(() => {});
  return run;
}

async function actNow(action, { quiet = false } = {}, seen = null) {
  const game = S.game;
  if (!game) return null;
  if (!S.token) { openPairing(); return null; }
  // The version the player saw, unless this phone's own earlier tap moved it on since.
  const version = S.ownVersion !== null && S.ownVersion === game.version ? game.version : (seen ?? game.version);
  const body = { version, op_id: opId(), action };
  for (let attempt = 0; ; attempt++) {
    try {
      const out = await api("POST", `/api/games/${game.id}/actions`, body);
      S.ownVersion = out.game.version;
      setGame(out.game);
      if (!quiet && !["undo", "redo", "next_game"].includes(action.type)) {
        const at = out.game.version;
        // The toast covers the top of the screen for five seconds, where the result and the
        // next count are written: it says them itself.
        const then = afterTap(out.game, game);
        toast(`${capital(describeAction(action, out.game, game))}${then}`, { label: "Undo", run: () => undoIfStill(at) }, 5);
        if (speakAll()) speak(spokenAction(action, out.game, game) + (out.game.result && !game.result ? `. ${resultText(out.game)}` : ""));
      } else if (action.type === "undo" || action.type === "redo") {
        // The toast of the tap just taken back (with its own Undo) would be out of date.
        const moved = scoreChanges(game, out.game);
        toast(`${action.type === "undo" ? "Undone" : "Redone"}${moved ? `: ${moved}` : ""}.`, null, 3);
      }
      return out.game;
    } catch (err) {
      // Lost on the way: send the very same operation again; the daemon applies it once.
      if (err.network && attempt < 4) { await sleep(400 * (attempt + 1)); continue; }
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
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1); // a toast is a sentence
// What a tap led to that the toast hides: the result, or the count the pad moved on to.
function afterTap(game, before) {
  if (game.result && !(before && before.result)) return `. ${resultText(game)}`;
  const next = game.next_count;
  const was = before && before.next_count;
  if (next && was && next.label !== was.label && game.phase === "show") return `. Next: ${next.label}`;
  return "";
}
// "Ann 12 → 8": each side whose score an undo or redo moved.
function scoreChanges(before, game) {
  if (!before || !game || before.id !== game.id) return "";
  return game.sides.map((s, i) => (before.sides[i] && before.sides[i].front !== s.front ? `${s.name} ${before.sides[i].front} → ${s.front}` : ""))
    .filter(Boolean).join(", ");
}

function undoIfStill(version) {
  // The five-second undo takes back this tap only, never someone else's newer one.
  if (!S.game || S.game.version !== version) { toast("Not undone: the game has moved on since."); return; }
  act({ type: "undo" }, { quiet: true });
}

function setGame(game) {
  if (game && S.game && game.id === S.game.id && game.version < S.game.version) return; // stale echo
  if (game && S.leftGameId === game.id) return; // this phone left that game for the new-game form
  S.game = game;
  S.lastUpdate = Date.now();
  renderGame();
  renderBoard();
}

// ---------------------------------------------------------------- live link
let ws = null;
const BACKOFF_MAX = 5000;
let backoff = 500;
let retryTimer = 0;
function connect() {
  clearTimeout(retryTimer);
  if (ws && (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING)) return;
  const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/api/events`;
  // A paired page shows its token the one way a browser can, as a subprotocol: the daemon
  // keeps room for paired phones when others hold the streams.
  try { ws = new WebSocket(url, S.token ? ["crib", `bearer.${S.token}`] : ["crib"]); } catch { scheduleReconnect(); return; }
  let opened = false;
  ws.onopen = () => { opened = true; refusedStreams = 0; stopPolling(); backoff = 500; S.live = true; renderLink(); };
  ws.onmessage = (ev) => {
    let msg;
    try { msg = JSON.parse(ev.data); } catch { return; }
    S.lastUpdate = Date.now();
    if (typeof msg.seq === "number") {
      // A gap means deltas were lost: start over with a fresh snapshot.
      if (msg.type !== "snapshot" && S.seq && msg.seq > S.seq + 1) { S.seq = 0; reconnectNow(true); return; }
      S.seq = msg.seq;
    }
    onEvent(msg);
    renderLink();
  };
  const mine = ws;
  ws.onclose = (ev) => {
    if (ws !== mine) return;
    S.live = false;
    // Refused (all streams busy) or closed to make room (1013): read the game by HTTP meanwhile.
    if (!opened) refusedStreams++;
    if (ev.code === 1013 || refusedStreams >= 2) startPolling();
    renderLink();
    scheduleReconnect();
  };
  ws.onerror = () => { try { ws.close(); } catch { /* closing anyway */ } };
}
let refusedStreams = 0;
let pollTimer = 0;
const POLL_MS = 5000; // the daemon's poll_s
function startPolling() {
  if (pollTimer) return;
  S.polling = true;
  pollTimer = setInterval(async () => {
    try { setGame(await api("GET", "/api/games/current")); } catch { /* no game, or away: next time */ }
    renderLink();
  }, POLL_MS);
}
function stopPolling() { clearInterval(pollTimer); pollTimer = 0; S.polling = false; }
function scheduleReconnect() {
  clearTimeout(retryTimer);
  // Capped, jittered backoff, forever.
  const wait = Math.min(backoff, BACKOFF_MAX) * (0.5 + Math.random() / 2);
  backoff = Math.min(backoff * 2, BACKOFF_MAX);
  retryTimer = setTimeout(connect, wait);
}
function reconnectNow(force = false) {
  if (!force && ws && ws.readyState === WebSocket.OPEN) return;
  backoff = 500;
  if (ws) { try { ws.close(); } catch { /* ignore */ } }
  ws = null;
  connect();
}
document.addEventListener("visibilitychange", () => { if (document.visibilityState === "visible") reconnectNow(); });
window.addEventListener("online", reconnectNow);
window.addEventListener("pageshow", reconnectNow);

function onEvent(msg) {
  switch (msg.type) {
    case "snapshot":
      S.game = msg.game || null;
      S.board = msg.board || null;
      S.shuffler = msg.shuffler || null;
      S.devices = msg.devices || {};
      applyPalette();
      renderAll();
      renderBoardFit();
      break;
    case "game":
      if (!msg.game) { S.game = null; renderGame(); renderBoard(); }
      else setGame(msg.game);
      break;
    case "board": S.board = msg.board; applyPalette(); renderBoard(); renderBoardFit(); break;
    case "shuffler": S.shuffler = msg.shuffler; S.shufflerSeen++; renderShuffler(); break;
    case "device":
      // {device, kind, data}: a "state" change carries the device's whole description.
      if (msg.kind === "state" && msg.device) { S.devices[msg.device] = { ...(S.devices[msg.device] || {}), ...(msg.data || {}) }; renderDevices(); }
      break;
    default: break; // unknown types are ignored by design
  }
}
function applyPalette() {
  const palette = S.board && S.board.palette;
  if (palette) document.body.classList.toggle("colorblind", palette === "colorblind");
}

function renderLink() {
  const link = $("#link");
  const age = S.lastUpdate ? Math.round((Date.now() - S.lastUpdate) / 1000) : null;
  if (S.live) { link.textContent = S.token ? "live" : "live · watching"; link.className = "link live"; }
  else if (S.polling) { link.textContent = `live view busy · checking every ${POLL_MS / 1000} s`; link.className = "link down"; }
  else { link.textContent = age === null ? "offline" : `offline · updated ${age} s ago`; link.className = "link down"; }
  document.body.classList.toggle("offline", !S.live && !S.polling);
}
setInterval(renderLink, 1000);

// ---------------------------------------------------------------- tabs
function showTab(name) {
  for (const b of $$(".tabs button")) b.setAttribute("aria-selected", String(b.dataset.tab === name));
  for (const s of $$(".tab")) s.hidden = s.id !== `tab-${name}`;
  if (name === "history") loadHistory();
  if (name === "settings") loadSettings();
  if (name === "shuffle") loadPlans();
  if (name === "board") renderBoard();
}
for (const b of $$(".tabs button")) b.addEventListener("click", () => showTab(b.dataset.tab));

// ---------------------------------------------------------------- rules, from the engine
// Every rule the page shows (players, hand sizes, targets, skunk lines, possible counts)
// comes from the daemon's GET /api/rules (the engine's catalogue) or the game's own view.
// Where a figure is missing the page shows nothing rather than a guess of its own.
const R = { catalogue: null, error: "" };
async function loadRules() {
  try { R.catalogue = await api("GET", "/api/rules"); R.error = ""; } catch (err) { R.catalogue = null; R.error = err.message; }
}
function variantRules(name) {
  const list = (R.catalogue && R.catalogue.variants) || [];
  return list.find((v) => v.name === name) || null;
}
function sidesOfVariant(v) {
  if (!v) return null;
  if (Array.isArray(v.sides)) return v.sides.length;
  if (Number.isInteger(v.sides)) return v.sides;
  return null; // the catalogue's to say: no count of our own
}
// Cards in a hand or crib of this variant, or null when the catalogue does not say.
function cardsIn(variant, kind) {
  const v = variantRules(variant);
  if (!v) return null;
  if (kind === "crib") return v.crib_size ?? null;
  return v.hand_size ?? null;
}
function dealtCards(variant) { const v = variantRules(variant); return v ? v.deal : null; }
// The totals a hand (or crib) of this variant can make, lowest first; null when not given.
function possibleCounts(variant, kind) {
  const v = variantRules(variant);
  const counts = (v && v.counts) || (R.catalogue && R.catalogue.counts) || null;
  return counts && Array.isArray(counts[kind]) ? counts[kind] : null;
}
// The play's limit (the count never passes it): the game's own, else its variant's in the
// catalogue; null when neither says (then the page names no limit and the engine judges).
const playLimit = (game) => (game && game.play && game.play.limit) ??
  (game && (variantRules(game.variant) || {}).play_limit) ?? null;

// ---------------------------------------------------------------- new game
function knownNames() { try { return JSON.parse(localStorage.getItem("crib.names") || "[]"); } catch { return []; } }
function rememberNames(names) {
  const all = [...new Set([...names, ...knownNames()])].slice(0, 30);
  localStorage.setItem("crib.names", JSON.stringify(all));
}
function renderVariantChoices() {
  const select = $("#variant");
  const variants = (R.catalogue && R.catalogue.variants) || [];
  if (!variants.length) return; // the engine's list has not come yet: the form waits for it
  const was = select.value;
  select.replaceChildren(...variants.map((v) => el("option", { value: v.name, text: v.title || v.name })));
  if (variants.some((v) => v.name === was)) select.value = was;
}
function renderNameFields() {
  const variant = $("#variant").value;
  const v = variantRules(variant);
  // Without the catalogue the page does not know the number of players: four fields, the
  // empty ones left out (the daemon says if the number is wrong for the game).
  const n = v ? v.players : 4;
  const box = $("#name-fields");
  const old = $$("input", box).map((i) => i.value);
  const names = knownNames();
  box.replaceChildren();
  for (let i = 0; i < n; i++) {
    const team = v && v.partners ? ` (partners ${i % 2 === 0 ? "A" : "B"})` : "";
    box.append(el("label", {}, `Player ${i + 1}${team}`, el("input", {
      name: `name${i}`, list: "known-names", required: !!v || i < 2, maxlength: 24, "aria-label": `Name of player ${i + 1}`,
      value: old[i] ?? (v || i < 2 ? names[i] || ["Ann", "Bob", "Cy", "Di"][i] : ""),
      oninput: renderDealerChoices,
    })));
  }
  $("#known-names").replaceChildren(...names.map((x) => el("option", { value: x })));
  renderDealerChoices();
  renderTargetChoices();
  renderBoardFit();
}
function formNames() {
  return $$("#name-fields input").map((i) => i.value.trim()).filter((x, i, all) => x || i < 2 || all.slice(i).some(Boolean));
}
function renderDealerChoices() {
  const dealer = $("#dealer-select");
  const was = dealer.value;
  const names = $$("#name-fields input").map((i, k) => i.value.trim() || `Player ${k + 1}`);
  dealer.replaceChildren(el("option", { value: "", text: "Cut for deal on this phone" }),
    ...names.map((name, i) => el("option", { value: String(i), text: name })));
  if ([...dealer.options].some((o) => o.value === was)) dealer.value = was;
}
function renderTargetChoices() {
  const v = variantRules($("#variant").value);
  const target = $("#new-game").target;
  const skunk = $("#new-game").skunk;
  const choices = v ? [...new Set([v.defaults.target, ...(v.targets || [])])] : [];
  const was = target.value;
  // The engine takes any target: the catalogue's own choices, or a number typed.
  target.replaceChildren(el("option", { value: "", text: v ? `${v.defaults.target} (the game's own)` : "The game's own" }),
    ...choices.filter((t) => t !== (v && v.defaults.target)).map((t) => el("option", { value: String(t), text: String(t) })),
    el("option", { value: "other", text: "Another number…" }));
  if ([...target.options].some((o) => o.value === was)) target.value = was;
  $("#target-other-label").hidden = target.value !== "other";
  // The lines are named only when the catalogue gives them for this target.
  const chosen = v && (target.value === "" ? v.defaults.target : Number(target.value));
  const byTarget = v && v.lines_by_target && v.lines_by_target[String(chosen)];
  const atDefault = v && chosen === v.defaults.target;
  const byRule = byTarget || (atDefault ? v.lines_by_rule || (Array.isArray(v.skunk_lines) ? { skunk: v.skunk_lines } : {}) : {});
  const rules = (R.catalogue && R.catalogue.skunk_rules) || [];
  if (!rules.length) return; // no catalogue: the served choice stays
  const skunkLines = byRule.skunk || [];
  const lurchLines = byRule.lurch || [];
  const words = {
    skunk: skunkLines.length === 2 ? `Skunk under ${skunkLines[0]}, double under ${skunkLines[1]}` :
      skunkLines.length === 1 ? `Skunk under ${skunkLines[0]}` : "Skunk and double skunk",
    lurch: lurchLines.length === 1 ? `One line, the lurch, at ${lurchLines[0]}` : "One line, the lurch",
    none: "None",
  };
  const wasSkunk = skunk.value;
  skunk.replaceChildren(...rules.map((r) => el("option", { value: r, text: words[r] || r })));
  skunk.value = rules.includes(wasSkunk) ? wasSkunk : (v && v.defaults.skunk) || rules[0];
}
// Bug 2: a board with fewer tracks than the game has sides cannot show them all; say so
// before the game starts, in the board's own count of tracks.
function boardTracks() { return S.board && Array.isArray(S.board.tracks) ? S.board.tracks.length : null; }
function renderBoardFit() {
  const note = $("#board-fit");
  if (!note) return;
  const sides = sidesOfVariant(variantRules($("#variant").value));
  const tracks = boardTracks();
  if (!sides || !tracks || sides <= tracks) { note.hidden = true; note.textContent = ""; return; }
  const names = $$("#name-fields input").map((i, k) => i.value.trim() || `Player ${k + 1}`);
  const off = names.slice(tracks);
  note.hidden = false;
  note.textContent = `The board has ${tracks} tracks: it will show ${names.slice(0, tracks).join(" and ")}; ` +
    `${off.join(" and ")} ${off.length > 1 ? "are" : "is"} kept on this page only.`;
}
$("#variant").addEventListener("change", renderNameFields);
$("#new-game").target.addEventListener("change", renderTargetChoices);

function randomIndex(n) {
  // Uniform without modulo bias.
  const buf = new Uint32Array(1);
  const limit = Math.floor(0x100000000 / n) * n;
  do crypto.getRandomValues(buf); while (buf[0] >= limit);
  return buf[0] % n;
}
// The cut for deal: the phone draws one card per player at random; the engine says who deals
// (and refuses a tie, which is cut again).
function drawCut(n) {
  const deck = [];
  for (const r of RANKS) for (const [s] of SUITS) deck.push(r + s);
  return Array.from({ length: n }, () => deck.splice(randomIndex(deck.length), 1)[0]);
}
async function cutForDeal(game) {
  for (let tries = 0; tries < 12; tries++) {
    const cards = drawCut(game.names.length);
    try {
      const out = await api("POST", `/api/games/${game.id}/actions`, { version: game.version, op_id: opId(), action: { type: "cut", cards } });
      const after = out.game;
      toast(cards.map((c, i) => `${game.names[i]} ${pretty(c)}`).join(", ") + ` — ${after.names[after.dealer]} deals.`, null, 6);
      return after;
    } catch (err) {
      if (err.status !== 422) throw err;
      if (err.data && err.data.game) game = err.data.game; // a tie: cut again
    }
  }
  throw new Error("the cut tied too often; choose the dealer");
}

$("#new-game").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  if (!S.token) { openPairing(); return; }
  const form = ev.target;
  const variant = form.variant.value;
  const names = formNames().map((x, i) => x || `Player ${i + 1}`);
  // Two players of one name make every label ("Ann's hand, then Ann's hand") ambiguous.
  const twice = names.find((n, i) => names.findIndex((m) => m.toLowerCase() === n.toLowerCase()) !== i);
  if (twice) { toast(`Two players are called ${twice}: give one of them another name.`, null, 6); return; }
  const dealer = form.dealer.value;
  const body = { variant, names, skunk: form.skunk.value, muggins: form.muggins.checked, mode: form.mode.value };
  if (dealer !== "") body.dealer = Number(dealer);
  if (form.target.value === "other") {
    const typed = form.target_other.value.trim();
    if (!/^\d+$/.test(typed)) { toast("Type the points to win, or choose the game's own target."); return; }
    body.target = Number(typed);
  } else if (form.target.value) body.target = Number(form.target.value);
  try {
    let game = await api("POST", "/api/games", body);
    rememberNames(names);
    if (dealer === "" && (game.legal || []).includes("cut")) game = await cutForDeal(game);
    S.leftGameId = null;
    setGame(game);
    // Bug 10: the game starts at the top, the first panel under the tabs, not under them.
    window.scrollTo(0, 0);
  } catch (err) {
    const said = ((err.data && err.data.problems) || []).map(sayProblem).filter(Boolean);
    toast(said.length ? said.join(" ") : sayOf(err), null, 6);
  }
});
// The API's checks of the new-game form's fields, in the table's words: "target: Input should
// be greater than or equal to N" -> "The points to win must be N or more." (N is the API's.)
const FORM_FIELDS = { target: "The points to win" };
function sayProblem(problem) {
  const m = /^([a-z_]+): Input should be (greater|less) than or equal to (\d+)$/.exec(problem);
  return m && FORM_FIELDS[m[1]] ? `${FORM_FIELDS[m[1]]} must be ${m[3]} or ${m[2] === "greater" ? "more" : "less"}.` : null;
}

// ---------------------------------------------------------------- game screen
const PAD = [1, 2, 3, 4, 6, 12];
function sideColour(i) { return `var(--p${i % 4})`; }

// "Bob wins 121 to 86 — a skunk": the winner's score first, then the others in side order.
function resultText(game) {
  const r = game.result;
  const winner = game.sides[r.winner] ? game.sides[r.winner].name : "";
  const scores = r.scores || game.sides.map((s) => s.front);
  const others = scores.filter((_, i) => i !== r.winner);
  const kind = { skunk: " — a skunk", double_skunk: " — a double skunk", lurch: " — lurched" }[r.kind] || "";
  const win = ((game.sides[r.winner] || {}).players || []).length > 1 ? "win" : "wins"; // "Ann & Cy win"
  return `${winner} ${win} ${scores[r.winner]} to ${others.join(" and ")}${kind}` + (r.game_points > 1 ? ` (${r.game_points} games)` : "");
}

// " · games won 1, counting 4": a skunk counts as more than one game (the engine's match points),
// as the result line said ("(4 games)").
function gamesWon(game, i) {
  if (!game.games_won || game.game_number <= 1) return "";
  const won = game.games_won[i] || 0;
  const counting = game.match_points ? game.match_points[i] || 0 : won;
  return ` · games won ${won}` + (counting !== won ? `, counting ${counting}` : "");
}

function renderGame() {
  const game = S.game;
  $("#no-game").hidden = !!game && !game.ended_by_user;
  $("#game").hidden = !game;
  if (!game) { renderNameFields(); return; }
  $("#no-game").hidden = true;
  const over = game.phase === "over" || !!game.result;
  const legal = new Set(game.legal || []);

  const result = $("#result");
  if (game.result) { result.textContent = resultText(game); result.hidden = false; } else result.hidden = true;

  // One panel per side, with its pad (bug 7: once counting starts the engine closes pegging;
  // the panel says why and how to fix a forgotten peg instead of showing dead buttons).
  const showing = game.phase === "show";
  const pegOpen = !over && legal.has("peg");
  // In the show a peg forgotten in the play goes in as a late peg (the engine records it so),
  // behind one button so that the count pad stays on top.
  const lateKey = `${game.id}/${game.game_number}/${game.hand_number}`;
  if (S.lateKey !== lateKey) { S.lateKey = lateKey; S.lateShown = false; }
  const lateOpen = !over && showing && !pegOpen && legal.has("late_peg");
  const padOpen = pegOpen || (lateOpen && S.lateShown);
  const pegType = pegOpen ? "peg" : "late_peg";
  const sides = $("#sides");
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
    const pad = el("div", { class: "pad write" },
      ...PAD.map((p) => el("button", {
        type: "button", text: `+${p}`, "aria-label": `${pegOpen ? "Peg" : "Late peg"} ${p} for ${side.name}`, disabled: !padOpen,
        onclick: () => act({ type: pegType, side: i, points: p }),
      })),
      el("div", { class: "num" }, num, el("button", {
        type: "button", text: "Peg", "aria-label": `Peg the number for ${side.name}`, disabled: !padOpen,
        onclick: () => pegNumber(i, num),
      })));
    const panel = el("article", { class: "side", style: `--c:${sideColour(i)}`, "data-side": String(i), "aria-label": side.name },
      el("header", {},
        el("span", { class: "name", text: side.name }),
        el("span", { class: "tags", text: tags.join(" · "), "data-tags": tags.join(" ") }),
        el("span", { class: "score", text: String(side.front), "data-front": String(side.front) })),
      el("div", { class: "back", "data-back": String(side.back), text: `back peg ${side.back}` + gamesWon(game, i) }),
      game.mode === "cards" || (!padOpen && showing) ? null : pad);
    sides.append(panel);
  });
  const closed = $("#peg-closed");
  closed.hidden = !(showing && !pegOpen && game.mode !== "cards" && !over);
  if (closed.hidden) closed.replaceChildren();
  else if (lateOpen) {
    closed.replaceChildren(el("button", { type: "button", class: "secondary write", id: "late-peg-btn", "aria-expanded": String(!!S.lateShown),
      text: S.lateShown ? "Done with late pegs" : "Forgot a peg in the play? Peg it late",
      onclick: () => { S.lateShown = !S.lateShown; renderGame(); } }));
  } else {
    closed.textContent = "Pegging closed when the counting began. A forgotten peg: Undo the counts back to the play, peg it, and count again.";
  }

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

  $("#cut-now").hidden = over || !legal.has("cut");

  const next = game.next_count;
  $("#count-label").textContent = next ? `Count for ${next.label}` : "Count";
  $("#count-input").setAttribute("aria-label", next ? `Count for ${next.label}` : "Count");
  $("#count-19").setAttribute("aria-label", next ? `19, nothing: ${next.label} is a zero hand` : "19, nothing: a zero hand");
  $("#show-entry").hidden = over || !next || !legal.has("count");
  if (game.mode === "cards") {
    $("#count-input").hidden = true; $("#count-19").hidden = true; $("#count-pad").hidden = true;
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

  // Pegging by playing cards.
  const playBox = $("#play-cards");
  const showPlay = game.mode === "cards" && !over && (legal.has("play") || legal.has("go") || legal.has("starter"));
  playBox.hidden = !showPlay;
  if (showPlay) renderPlay(game, legal);

  // In the play of cards mode the play box has its own hint; otherwise the hint is the discard.
  $("#hint-btn").hidden = showPlay && !legal.has("starter");
  $("#hint-btn").textContent = "Hint";
  $("#hint-btn").setAttribute("aria-label", "Hint: which two to throw");
  $("#heels-btn").hidden = game.mode === "cards";
  $("#heels-btn").disabled = over || !legal.has("heels");
  $("#undo-btn").disabled = !game.can_undo;
  $("#redo-btn").disabled = !game.can_redo;
  $("#next-game").hidden = !over || !legal.has("next_game");
  renderMuggins(game, legal);
  if (!$("#advise-panel").hidden && !$("#tab-count").hidden) renderAdvisor();
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
  const pad = $("#count-pad");
  const counts = next ? possibleCounts(game.variant, next.kind) : null;
  pad.hidden = !counts;
  const key = counts ? `${next.label}/${counts.join(",")}` : "";
  if (pad.dataset.key === key) return;
  pad.dataset.key = key;
  if (!counts) { pad.replaceChildren(); return; }
  pad.replaceChildren(...counts.map((n) => el("button", {
    type: "button", class: "count-n", "data-points": String(n), text: String(n),
    "aria-label": `${n} for ${next.label}`, onclick: () => sendCount(n),
  })));
}

function sideOfPlayer(game, player) {
  const i = game.sides.findIndex((s) => (s.players || []).includes(player));
  return i < 0 ? player : i;
}

function renderPlay(game, legal) {
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
  $("#play-who").textContent = needStarter ? "Cut the starter and tap it." :
    !name ? "" : fits.length && legal.has("go") ?
      `${name} to play: no go, ${fits.map(pretty).join(" and ")} ${fits.length > 1 ? "fit" : "fits"} (count ${count}, up to ${limit}).` :
      `${name} to play${canGo ? ` (a go if no card fits${limit === null ? "" : ` up to ${limit}`})` : ""}.`;
  // What the engine pegged this hand, the latest first.
  const said = (play.say || []).slice(-3).reverse();
  $("#play-say").replaceChildren(...said.map((n, i) => el("li", { class: i === 0 ? "latest" : "", "data-player": String(n.player),
    text: `${game.names[n.player]} pegs ${n.points}: ${n.say}` })));
  const used = new Set([...(play.played || []).map((p) => p.card), ...(game.starter ? [game.starter] : [])]);
  const suggested = !needStarter && H.open && H.result && H.result.card && H.for === who ? H.result.card : null;
  buildPicker($("#play-picker"), (card) => {
    if (needStarter) act({ type: "starter", card });
    else act({ type: "play", player: who, card });
  }, (card) => used.has(card) || (!needStarter && limit !== null && pips(card) > limit - count), () => false,
  (card) => (card === suggested ? "suggest" : ""));
  $("#go-btn").hidden = needStarter;
  $("#go-btn").disabled = !canGo;
  $("#go-btn").setAttribute("aria-label", canGo ? `Go: ${name} cannot play` : fits.length ? `Go refused: ${fits.map(spoken).join(" and ")} fits` : "Go");
  $("#go-btn").onclick = () => act({ type: "go", player: who });
  $("#play-hint-btn").hidden = needStarter || who === null;
  renderPlayHint(game, needStarter ? null : who);
}

// ---------------------------------------------------------------- the pegging hint
// Each player's cards still in hand, as tapped on this phone for the hint; forgotten with the hand.
const H = { open: false, hands: {}, handKey: "", for: null, key: "", result: null, error: "" };
const pips = (c) => Math.min(10, RANKS.indexOf(c.slice(0, -1)) + 1);
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
  return (H.hands[player] || []).filter((c) => !used.has(c));
}
function renderPlayHint(game, who) {
  const box = $("#play-hint");
  const btn = $("#play-hint-btn");
  const handKey = `${game.id}/${game.game_number}/${game.hand_number}`;
  if (H.handKey !== handKey) { H.hands = {}; H.handKey = handKey; H.key = ""; H.result = null; }
  btn.setAttribute("aria-expanded", String(H.open && who !== null));
  btn.setAttribute("aria-pressed", String(H.open && who !== null));
  box.hidden = !H.open || who === null;
  if (box.hidden) return;
  const play = game.play || {};
  const playedCards = (play.played || []).map((p) => p.card);
  const used = new Set([...playedCards, ...(game.starter ? [game.starter] : [])]);
  // Cards played since they were tapped have left the hand.
  const hand = (H.hands[who] || []).filter((c) => !used.has(c));
  H.hands[who] = hand;
  H.for = who;
  const size = hintHandSize(game, who);
  const name = game.names[who];
  $("#play-hint-ask").textContent = hand.length < size ?
    `Tap the ${size === 1 ? "card" : `${size} cards`} ${name} still holds (${size - hand.length} more).` :
    `${name} holds ${hand.map(pretty).join(" ")}.`;
  buildPicker($("#hint-picker"), (card) => {
    const mine = H.hands[who] || [];
    if (!mine.includes(card) && mine.length >= size) { toast(`${name} holds ${size} cards: tap one of them to take it back.`); return; }
    H.hands[who] = mine.includes(card) ? mine.filter((c) => c !== card) : [...mine, card];
    renderGame(); // the Go button depends on the cards known in hand
  }, (card) => used.has(card), (card) => hand.includes(card));
  const out = $("#hint-out");
  if (!hand.length) { out.replaceChildren(); H.key = ""; H.result = null; return; }
  const series = play.cards || [];
  const body = { hand, played: series, count: play.count ?? 0,
    known: [...playedCards.filter((c) => !series.includes(c)), ...(game.starter ? [game.starter] : [])] };
  const key = JSON.stringify(body);
  if (key !== H.key) {
    H.key = key; H.result = null; H.error = "";
    out.replaceChildren(el("p", { class: "hint", text: "Thinking…" }));
    api("POST", "/api/advise/play", body).then((r) => {
      if (H.key !== key) return;
      H.result = r;
      showHint(r, who);
      renderPlayPickerSuggestion();
    }).catch((err) => {
      if (H.key !== key) return;
      H.error = sayOf(err);
      out.replaceChildren(el("p", { class: "error", text: H.error }));
    });
    return;
  }
  if (H.result) showHint(H.result, who);
  else if (H.error) out.replaceChildren(el("p", { class: "error", text: H.error }));
}
function showHint(r, who) {
  const out = $("#hint-out");
  const game = S.game;
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
        onclick: () => act({ type: "play", player: who, card: r.card }) }) : null);
}
function renderPlayPickerSuggestion() {
  const card = H.open && H.result && H.result.card ? H.result.card : null;
  for (const b of $$("#play-picker button")) b.classList.toggle("suggest", b.dataset.card === card);
}
$("#play-hint-btn").addEventListener("click", () => { H.open = !H.open; renderGame(); });

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
  const text = missed !== null ?
    `${last.label} was counted ${last.points} but makes ${counted + missed}: ${missed} missed. Muggins!` :
    `${last.label} was counted ${last.points}${last.claimed ? ` (+${last.claimed} claimed)` : ""}. Missed points? Call muggins:`;
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

function sendCount(points) {
  const game = S.game;
  if (!game || !game.next_count) return;
  if (game.mode === "cards") { openCardsCount(); return; }
  if (!Number.isInteger(points) || points < 0) { toast("Type the count, then tap Count."); return; }
  act({ type: "count", points });
  $("#count-input").value = "";
}
// Bug 9: a form, so Enter on the phone's keyboard sends the count as the button does.
$("#count-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  if (S.game && S.game.mode === "cards") { openCardsCount(); return; }
  const v = $("#count-input").value.trim();
  sendCount(v === "" ? NaN : Number(v));
});
$("#count-19").addEventListener("click", () => sendCount(19));
// A game started without a dealer (on another phone, or by the API) is cut for here.
$("#cut-now").addEventListener("click", async () => {
  if (!S.game) return;
  if (!S.token) { openPairing(); return; }
  try { setGame(await cutForDeal(S.game)); } catch (err) { toast(sayOf(err), null, 6); }
});
$("#heels-btn").addEventListener("click", () => act({ type: "heels" }));
$("#undo-btn").addEventListener("click", () => act({ type: "undo" }, { quiet: true }));
$("#redo-btn").addEventListener("click", () => act({ type: "redo" }, { quiet: true }));
$("#next-game").addEventListener("click", () => act({ type: "next_game" }, { quiet: true }));
// The Score tab's hint: during the play in cards mode, the pegging hint; else which two to throw.
$("#hint-btn").addEventListener("click", () => {
  const game = S.game;
  if (game && game.mode === "cards" && (game.legal || []).includes("play")) { H.open = true; renderGame(); $("#play-hint").scrollIntoView({ block: "nearest" }); return; }
  openAdvisor();
});
$("#end-game").addEventListener("click", () => {
  if (S.game && !S.game.result && !confirm("Leave this game and start a new one?")) return;
  S.leftGameId = S.game ? S.game.id : null; S.game = null; renderGame(); renderBoard();
});

// ---------------------------------------------------------------- card picker
function buildPicker(root, onPick, isDisabled = () => false, isPressed = () => false, pressedClass = () => "") {
  root.replaceChildren();
  for (const [s, glyph] of SUITS) {
    for (const r of RANKS) {
      const card = r + s;
      root.append(el("button", {
        type: "button", class: `${isRed(card) ? "red" : ""} ${r === "A" ? "ace" : ""} ${pressedClass(card)}`.replace(/\s+/g, " ").trim(), "data-card": card,
        "aria-pressed": String(isPressed(card)), disabled: isDisabled(card),
        onclick: () => onPick(card),
      // The name a screen reader says is the card in words ("four of clubs"); the glyphs are for eyes.
      }, el("span", { "aria-hidden": "true", text: r }), el("span", { "aria-hidden": "true", text: glyph }),
      el("span", { class: "sr", text: spoken(card) })));
    }
  }
}

const C = { hand: [], starter: null, target: "hand", result: null, due: null };
function countVariant() { return S.game ? S.game.variant : "six-card"; }
function countSize() { return cardsIn(countVariant(), $("#count-crib").checked ? "crib" : "hand"); }
// Bug 5: while a count of a cards-mode game is due, every card known to be elsewhere this
// deal (laid in the play from another hand; for the crib, from any hand) is greyed out.
function elsewhere() {
  const game = S.game;
  if (!game || game.mode !== "cards" || !game.next_count || game.result) return new Set();
  const next = game.next_count;
  const played = (game.play && game.play.played) || [];
  return new Set(played.filter((p) => next.kind === "crib" || p.player !== next.player).map((p) => p.card));
}
function renderCount() {
  const size = countSize();
  $("#pick-hand").setAttribute("aria-pressed", String(C.target === "hand"));
  $("#pick-starter").setAttribute("aria-pressed", String(C.target === "starter"));
  const away = elsewhere();
  buildPicker($("#count-picker"), pickCountCard, (c) => away.has(c) && !C.hand.includes(c),
    (c) => C.hand.includes(c) || C.starter === c, (c) => (C.starter === c ? "starter" : ""));
  // The count due in cards mode, said above the picker: a card never laid in the play (the
  // five-card game's single round, a hand left holding a card) is still to be tapped.
  const game = S.game;
  const due = game && game.mode === "cards" && game.next_count && C.due === game.next_count.label ? C.due : null;
  const left = size === null ? 0 : Math.max(0, size - C.hand.length);
  const crib = $("#count-crib").checked;
  $("#count-ask").textContent = !due ? "Tap the hand cards, then the starter." : `${due}: ` + (left ?
    `tap ${left === 1 ? "the card" : `the ${left} cards`} ${crib ? "of the crib" : "not laid in the play"}${C.starter ? "" : ", then the starter"}.` :
    C.starter ? "check the count, then send it." : "tap the starter.");
  const chosen = $("#chosen");
  chosen.replaceChildren(...[...C.hand.map((c) => el("span", { class: isRed(c) ? "red" : "", "data-card": c, "aria-label": spoken(c), text: pretty(c) + " " })),
    left ? el("span", { class: "hint", text: ` (${left} more)` }) : null,
    C.starter ? el("span", { text: " | starter " }) : left ? null : el("span", { class: "hint", text: " — now the starter" }),
    C.starter ? el("span", { class: isRed(C.starter) ? "red" : "", "data-card": C.starter, "aria-label": spoken(C.starter), text: pretty(C.starter) }) : null].filter(Boolean)); // null would show as "null"
  renderBreakdown();
}
function pickCountCard(card) {
  const size = countSize();
  if (elsewhere().has(card) && !C.hand.includes(card)) return;
  if (C.hand.includes(card)) C.hand = C.hand.filter((c) => c !== card);
  else if (C.starter === card) C.starter = null;
  else if (C.target === "starter" || (size !== null && C.hand.length >= size)) { C.starter = card; C.target = "hand"; }
  else { C.hand.push(card); if (C.hand.length === size && !C.starter) C.target = "starter"; }
  C.result = null;
  renderCount();
  if (C.starter && (size === null ? C.hand.length > 0 : C.hand.length === size)) countNow(true);
}
async function countNow(reveal = false) {
  try {
    C.result = await api("POST", "/api/count", { hand: C.hand, starter: C.starter, crib: $("#count-crib").checked, variant: countVariant() });
  } catch (err) { C.result = null; toast(sayOf(err), null, 6); }
  renderBreakdown();
  // Bug 13: after the last card the total and Send come into view.
  if (reveal && C.result) ($("#count-to-score").hidden ? $("#breakdown") : $("#count-to-score")).scrollIntoView({ block: "nearest" });
  if (C.result && speakAll()) speak(C.result.say);
}
function renderBreakdown() {
  const box = $("#breakdown");
  const r = C.result;
  const send = $("#count-to-score");
  if (!r) { box.replaceChildren(); send.hidden = true; $("#claim-label").hidden = true; return; }
  const items = (r.combinations || []).map((combo) => el("li", {
    tabindex: 0, "data-kind": combo.kind,
    onclick: (ev) => highlight(combo.cards, ev.currentTarget), onfocus: (ev) => highlight(combo.cards, ev.currentTarget),
  }, `${combo.kind} ${(combo.cards || []).map(pretty).join(" ")} — ${combo.points}`));
  box.replaceChildren(el("div", { class: "total", text: String(r.total) }),
    el("p", { class: "say", text: r.say }),
    canSpeak() ? el("button", { type: "button", class: "secondary", id: "say-it", text: "Say it", "aria-label": "Say the count aloud", onclick: () => speak(r.say) }) : null,
    el("ul", {}, ...items));
  const game = S.game;
  send.hidden = !(game && game.next_count && !game.result && (game.legal || []).includes("count"));
  $("#claim-label").hidden = send.hidden || game.mode !== "cards" || !game.muggins;
  if (!send.hidden) send.textContent = game.mode === "cards" && game.muggins ? `Send to ${game.next_count.label}` : `Send ${r.total} to ${game.next_count.label}`;
}
function highlight(cards, li) {
  for (const x of $$("#breakdown li")) x.classList.toggle("hi", x === li);
  for (const span of $$("#chosen [data-card]")) span.classList.toggle("hi", cards.includes(span.dataset.card));
}
$("#pick-hand").addEventListener("click", () => { C.target = "hand"; renderCount(); });
$("#pick-starter").addEventListener("click", () => { C.target = "starter"; renderCount(); });
$("#count-clear").addEventListener("click", () => { C.hand = []; C.starter = null; C.result = null; C.target = "hand"; renderCount(); $("#advice").replaceChildren(); });
$("#count-crib").addEventListener("change", () => { if (C.result) countNow(); });
$("#count-to-score").addEventListener("click", async () => {
  const game = S.game;
  if (!game || !C.result) return;
  let done;
  if (game.mode === "cards") {
    // With muggins on, the player's own count is sent and what it misses can be claimed.
    const action = { type: "count", cards: C.hand };
    const claim = $("#count-claim").value.trim();
    if (game.muggins && claim !== "") {
      const n = Number(claim);
      if (!Number.isInteger(n) || n < 0) { toast("Type the points counted, or leave it empty for the full count."); return; }
      action.points = n;
    }
    done = await act(action);
  } else done = await act({ type: "count", points: C.result.total });
  if (!done) return;
  $("#count-claim").value = "";
  C.hand = []; C.starter = null; C.result = null; C.target = "hand"; C.due = null;
  renderCount();
  showTab("score");
});

// Cards mode: the count due, on the Count tab, with what the page already knows (the
// starter, the cards the player laid in the play, whether it is the crib).
function openCardsCount() {
  const game = S.game;
  showTab("count");
  setCountMode("count");
  if (!game || !game.next_count) return;
  const next = game.next_count;
  C.due = next.label;
  C.starter = game.starter || null;
  C.hand = next.kind === "hand" ? ((game.play && game.play.played) || []).filter((p) => p.player === next.player).map((p) => p.card) : [];
  $("#count-crib").checked = next.kind === "crib";
  C.target = "hand";
  C.result = null;
  renderCount();
  // Every card known already: straight to the breakdown (below the picker) and the send.
  if (C.starter && C.hand.length === countSize()) countNow().then(() => $("#count-to-score").scrollIntoView({ block: "center" }));
}

// ---------------------------------------------------------------- which two to throw
const A = { cards: [], dealer: null, chosenByHand: false, result: null, all: false, key: "", handKey: "" };
function setCountMode(mode) {
  $("#mode-count").setAttribute("aria-pressed", String(mode === "count"));
  $("#mode-advise").setAttribute("aria-pressed", String(mode === "advise"));
  $("#count-panel").hidden = mode !== "count";
  $("#advise-panel").hidden = mode !== "advise";
  if (mode === "advise") renderAdvisor();
}
function openAdvisor() { showTab("count"); setCountMode("advise"); }
$("#mode-count").addEventListener("click", () => setCountMode("count"));
$("#mode-advise").addEventListener("click", () => setCountMode("advise"));

// Who this phone's player is, when the phone's name holds exactly one player's name.
function phonePlayer(game) {
  const phone = (S.tokenName || "").toLowerCase();
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
  const game = S.game;
  const variant = countVariant();
  const want = dealtCards(variant);
  if (want === null) {
    // No catalogue, no guess: the advisor needs the number of cards dealt.
    $("#advise-ask").textContent = `The table has not sent its rules (${R.error || "no answer"}): reload the page.`;
    return;
  }
  if (A.cards.length > want) A.cards = A.cards.slice(0, want);
  const handKey = game ? `${game.id}/${game.game_number}/${game.hand_number}` : "";
  if (handKey !== A.handKey) { A.handKey = handKey; A.chosenByHand = false; }
  if (!A.chosenByHand) A.dealer = defaultRole(game);
  const partners = !!(variantRules(variant) || {}).partners;
  $("#role-dealer").textContent = partners ? "Our crib" : "I deal";
  $("#role-pone").textContent = partners ? "Their crib" : "I'm pone";
  $("#role-dealer").setAttribute("aria-pressed", String(A.dealer === true));
  $("#role-pone").setAttribute("aria-pressed", String(A.dealer === false));
  const me = phonePlayer(game);
  const dealerName = game && game.dealer !== null && game.dealer !== undefined && !game.result ? game.names[game.dealer] : null;
  $("#role-note").textContent = dealerName ?
    `${dealerName} deals this hand` + (me !== null && !A.chosenByHand && A.dealer !== null ? ` (this phone is ${game.names[me]}'s).` : ".") : "";
  $("#advise-ask").textContent = A.cards.length < want ?
    `Tap the ${want} cards you were dealt (${want - A.cards.length} more), then say who deals.` :
    A.dealer === null ? "Now say who deals." : "Tap a card to take it back.";
  $("#dealt").replaceChildren(...A.cards.map((c) => el("span", { class: isRed(c) ? "red" : "", "data-card": c, text: pretty(c) + " " })));
  buildPicker($("#advise-picker"), (card) => {
    if (!A.cards.includes(card) && A.cards.length >= want) { toast(`${want} cards are picked: tap one of them to take it back.`); return; }
    A.cards = A.cards.includes(card) ? A.cards.filter((c) => c !== card) : [...A.cards, card];
    renderAdvisor();
  }, () => false, (card) => A.cards.includes(card));
  const ready = A.cards.length === want && A.dealer !== null;
  if (!ready) { A.key = ""; A.result = null; $("#advice").replaceChildren(); return; }
  const body = { hand: A.cards, dealer: A.dealer, variant, model: "random" };
  const key = JSON.stringify(body);
  if (key === A.key) { if (A.result) showAdvice(A.result); return; }
  A.key = key; A.result = null;
  $("#advice").replaceChildren(el("p", { class: "hint", text: "Working it out…" }));
  api("POST", "/api/advise", body).then((adv) => {
    if (A.key !== key) return;
    A.result = adv;
    showAdvice(adv);
  }).catch((err) => { if (A.key === key) $("#advice").replaceChildren(el("p", { class: "error", text: sayOf(err) })); });
}
const cardsText = (cards) => cards.map((c) => el("span", { class: isRed(c) ? "red" : "", text: pretty(c) }))
  .flatMap((x, i) => (i ? [" ", x] : [x]));
function showAdvice(adv) {
  const options = adv.options || [];
  const best = options[0];
  if (!best) { $("#advice").replaceChildren(); return; }
  const f = (x) => Number(x).toFixed(2);
  const whose = adv.dealer ? "your crib" : "their crib";
  const rows = A.all ? options : options.slice(0, 6);
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
    text: A.all ? "Show the best 6" : `Show all ${options.length}`, onclick: () => { A.all = !A.all; showAdvice(adv); } }) : null;
  $("#advice").replaceChildren(summary, table,
    el("p", { class: "hint", text: `Exact averages over every starter and every crib the other ${adv.unseen} cards can make (${adv.model} model).` }), more);
}
$("#role-dealer").addEventListener("click", () => { A.dealer = true; A.chosenByHand = true; renderAdvisor(); });
$("#role-pone").addEventListener("click", () => { A.dealer = false; A.chosenByHand = true; renderAdvisor(); });
$("#advise-clear").addEventListener("click", () => { A.cards = []; A.all = false; A.chosenByHand = false; renderAdvisor(); });

// ---------------------------------------------------------------- shuffler
async function loadPlans() {
  const deck = Number($("#shuffle-form").deck.value);
  if (!S.plans[deck]) {
    try { S.plans[deck] = (await api("GET", `/api/shuffler/plans?deck=${deck}`)).plans; } catch { S.plans[deck] = null; }
  }
  renderPlanQuality();
  renderShuffler();
}
function renderPlanQuality() {
  const form = $("#shuffle-form");
  const plans = S.plans[Number(form.deck.value)] || [];
  const p = plans.find((x) => x.plan === form.plan.value);
  const box = $("#plan-quality");
  if (!p) { box.replaceChildren(); return; }
  box.replaceChildren(
    el("span", { class: `tv ${p.random ? "good" : "bad"}`, text: `${p.passes} passes · distance ${Number(p.tv_distance).toFixed(3)}` }),
    el("span", { text: ` ${p.quality}` }));
}
$("#shuffle-form").addEventListener("change", (ev) => { if (ev.target.name === "deck") loadPlans(); else renderPlanQuality(); });
async function shufflerCall(path, body) {
  // The answer is the status when the request was handled; live updates sent after it win.
  const seen = S.shufflerSeen;
  try {
    const status = await api("POST", path, body);
    if (S.shufflerSeen === seen) { S.shuffler = status; renderShuffler(); }
  } catch (err) { toast(sayOf(err), null, 8); }
}
$("#shuffle-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  if (!S.token) { openPairing(); return; }
  const form = ev.target;
  shufflerCall("/api/shuffler/shuffle", { deck: Number(form.deck.value), plan: form.plan.value });
});
$("#shuffle-continue").addEventListener("click", () => shufflerCall("/api/shuffler/continue", {}));
$("#shuffle-abort").addEventListener("click", () => shufflerCall("/api/shuffler/abort", {}));
function renderShuffler() {
  const st = S.shuffler;
  const box = $("#shuffle-status");
  const cont = $("#shuffle-continue");
  const stop = $("#shuffle-abort");
  if (!st) { box.replaceChildren(); cont.hidden = true; stop.hidden = true; return; }
  const running = ["busy", "waiting", "fault"].includes(st.state);
  const parts = [];
  if (st.passes_total && (st.state === "busy" || st.state === "fault")) {
    const pass = Math.min(st.passes_done + (st.state === "waiting" ? 0 : 1), st.passes_total);
    parts.push(el("div", { class: "pass", text: `Pass ${pass} of ${st.passes_total}` + (st.state === "busy" && st.deck_size ? ` · ${st.cards_this_pass} of ${st.deck_size} cards` : "") }));
  }
  if (st.fault) {
    parts.push(el("div", { class: "fault", role: "alert" }, el("strong", { text: "Stopped. " }), st.fault));
  } else if (st.prompt) {
    parts.push(el("div", { class: "prompt", text: st.prompt }));
  } else if (st.state === "busy") {
    parts.push(el("div", { class: "prompt", text: "Shuffling… keep your hands clear." }));
  }
  if (st.passes_total) {
    const frac = (st.passes_done + (st.state === "busy" && st.deck_size ? st.cards_this_pass / st.deck_size : 0)) / st.passes_total;
    const pct = Math.round(Math.min(1, frac) * 100);
    parts.push(el("div", { class: "progress", role: "progressbar", "aria-label": "Shuffle progress", "aria-valuenow": String(pct), "aria-valuemin": "0", "aria-valuemax": "100" },
      el("div", { style: `width:${pct}%` })));
  }
  const stateText = { idle: "ready", busy: "shuffling", waiting: "waiting for you", fault: "stopped by a fault", absent: "not connected", lost: "lost", stopped: "stopped" }[st.state] || st.state;
  parts.push(el("div", { class: "hint", "data-state": st.state, text: `Shuffler: ${stateText}` + (st.state === "absent" && st.fault ? ` (${st.fault})` : "") }));
  box.replaceChildren(...parts);
  box.dataset.state = st.state;
  cont.hidden = !(st.state === "waiting" || st.state === "fault");
  cont.textContent = st.state === "fault" ? "Done, go on" : "Stacked, next pass";
  stop.hidden = !running;
  $("#shuffle-start").disabled = running;
}

// ---------------------------------------------------------------- board drawing
// The board as the LEDs show it: two columns per track (up the first half of the holes
// outside, down the second half inside), holes in groups of five, the start holes at the foot and the game hole on top.
const BOARD = { top: 58, bottom: 462, startY: 492, gameY: 26 };
function holeXY(track, tracks, score, target) {
  const laneW = 300 / tracks;
  const x0 = 30 + track * laneW + laneW * 0.28;
  const x1 = 30 + track * laneW + laneW * 0.72;
  const step = (BOARD.bottom - BOARD.top) / (59 + 11 * 0.6);
  const yOf = (i) => BOARD.bottom - step * (i + Math.floor(i / 5) * 0.6);
  if (score <= 0) return [(x0 + x1) / 2, BOARD.startY];
  if (score >= target) return [180, BOARD.gameY];
  const s = ((score - 1) % 120) + 1; // a score past the 120 drawn holes laps round again
  if (s <= 60) return [x0, yOf(s - 1)];
  return [x1, yOf(120 - s)];
}
let boardKey = "";
function drawBoardHoles(root, n, target) {
  root.replaceChildren();
  const g = svg("g", { class: "holes" });
  g.append(svg("circle", { cx: 180, cy: BOARD.gameY, r: 9, class: "hole game" }));
  for (let t = 0; t < n; t++) {
    for (let sc = 1; sc <= 120; sc++) {
      const [x, y] = holeXY(t, n, sc, 1000);
      g.append(svg("circle", { cx: x, cy: y, r: 2.8, class: "hole" }));
    }
    const [sx, sy] = holeXY(t, n, 0, target);
    g.append(svg("circle", { cx: sx - 7, cy: sy, r: 3.5, class: "hole" }), svg("circle", { cx: sx + 7, cy: sy, r: 3.5, class: "hole" }));
  }
  root.append(g);
  const label = (text, x, y) => { const node = svg("text", { x, y, class: "board-label", "text-anchor": "middle" }); node.textContent = text; root.append(node); };
  label(String(target), 180, 50);
  label("60", 24, BOARD.top + 4);
  label("1", 24, BOARD.bottom + 4);
  root.append(svg("g", { class: "pegs" }));
}
function pegsShown() {
  // What the board shows (the state sent to the LEDs), else the game itself.
  const game = S.game;
  const sides = game ? game.sides : [];
  const tracks = S.board && S.board.tracks ? S.board.tracks : [];
  const n = Math.max(1, game ? sides.length : Math.min(tracks.length || 2, 3));
  return Array.from({ length: n }, (_, t) => tracks[t] || sides[t] || { front: 0, back: 0 });
}
function renderBoard() {
  const root = $("#board-svg");
  if (!root) return;
  const game = S.game;
  const shown = pegsShown();
  const n = shown.length;
  const target = game ? game.target : (S.board && S.board.target) || 121;
  // The lines are the engine's (the game view's skunk_lines), drawn as given; none without it.
  const lines = game && Array.isArray(game.skunk_lines) ? game.skunk_lines : [];
  const key = `${n}/${target}/${lines.join(",")}`;
  if (key !== boardKey) {
    drawBoardHoles(root, n, target);
    boardKey = key;
    for (let t = 0; t < n; t++) for (const line of lines) {
      const [x, y] = holeXY(t, n, line, 1000);
      root.insertBefore(svg("line", { x1: x - 9, x2: x + 9, y1: y - 4, y2: y - 4, class: "skunk-line", "data-line": String(line) }), root.lastChild);
    }
  }
  const pegs = $(".pegs", root);
  shown.forEach((track, t) => {
    for (const kind of ["back", "front"]) {
      const score = track[kind];
      let peg = $(`[data-track="${t}"][data-kind="${kind}"]`, pegs);
      if (!peg) {
        peg = svg("circle", { cx: 0, cy: 0, r: kind === "front" ? 7 : 6, class: `peg ${kind} p${t}`, "data-track": String(t), "data-kind": kind });
        pegs.append(peg);
        const [x, y] = holeXY(t, n, score, target);
        peg.style.transform = `translate(${x}px, ${y}px)`;
      }
      const offset = kind === "back" && score === 0 ? -7 : kind === "front" && track.front === 0 ? 7 : 0;
      const [x, y] = holeXY(t, n, score, target);
      peg.style.transform = `translate(${x + offset}px, ${y}px)`;
      peg.dataset.score = String(score);
    }
  });
  for (const peg of $$(".peg", pegs)) if (Number(peg.dataset.track) >= n) peg.remove();
  const names = game ? game.sides.map((s) => s.name) : shown.map((_, t) => `Track ${t + 1}`);
  $("#board-legend").replaceChildren(...shown.map((tr, t) => el("span", { class: "legend-item", "data-track": String(t) },
    el("i", { class: `swatch p${t}` }), `${names[t]} ${tr.front} (back ${tr.back})`)));
  checkLeds();
}
// On the Board screen, ask the board what its LEDs really show (read back from the device).
// Bug 2: only the tracks the board has are compared, the sides it cannot show are named,
// and the page gives up asking after a few seconds instead of polling forever.
let ledTimer = 0;
let ledTries = 0;
const LED_TRIES = 12; // about 4 s at one read-back every 300 ms
function checkLeds(again = false) {
  clearTimeout(ledTimer);
  if (!again) ledTries = 0;
  if ($("#tab-board").hidden) return;
  ledTimer = setTimeout(async () => {
    const note = $("#board-note");
    try {
      const back = await api("GET", "/api/board");
      if (!back.reachable) { note.textContent = "The board does not answer; the drawing shows what was sent to it."; return; }
      const shown = pegsShown();
      const tracks = (back.tracks || []).length;
      const onBoard = shown.slice(0, tracks);
      const same = onBoard.every((tr, i) => back.tracks[i].front === tr.front && back.tracks[i].back === tr.back);
      const names = S.game ? S.game.sides.map((x) => x.name) : [];
      const off = names.slice(tracks);
      const missing = off.length ? ` The board has ${tracks} tracks: ${off.join(" and ")} ${off.length > 1 ? "are" : "is"} on this page only.` : "";
      ledTries++;
      if (same) note.textContent = "The board's LEDs show the same (read back just now)." + missing;
      else if (ledTries >= LED_TRIES) note.textContent = `The board has not shown the latest pegs after ${Math.round(LED_TRIES * 0.3)} s; the drawing shows what was sent to it.` + missing;
      else { note.textContent = "The board is catching up…" + missing; checkLeds(true); }
    } catch (err) { note.textContent = err.status === 503 ? "The board is not connected." : ""; }
  }, 300);
}

// ---------------------------------------------------------------- history and statistics
const RESULT_WORDS = { win: "", skunk: "skunk", double_skunk: "double skunk", lurch: "lurch" };
async function loadHistory() {
  try {
    const [hist, stats] = await Promise.all([api("GET", "/api/history"), api("GET", "/api/stats")]);
    const games = hist.games || [];
    const when = (t) => new Date(t * 1000).toLocaleString([], { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
    $("#history-list").replaceChildren(...(games.length ? games.map((g) => {
      const r = g.result || {};
      const sides = [];
      for (const p of g.players || []) if (!sides[p.side]) sides[p.side] = { names: [], score: p.score }; 
      for (const p of g.players || []) if (!sides[p.side].names.includes(p.name)) sides[p.side].names.push(p.name);
      const line = sides.map((x) => `${x.names.join(" & ")} ${x.score}`).join(" – ");
      const kind = RESULT_WORDS[r.kind] ?? r.kind ?? "";
      return el("li", {}, el("button", {
        type: "button", "data-game": String(g.game_id),
        onclick: () => showRace(g.game_id, g.match_game),
      }, el("span", { class: "sr", text: `Score race of game ${g.game_id}: ` }),
      el("span", { class: "when", text: when(g.finished_at) }), el("span", { class: "line", text: line }), el("span", { class: "kind", text: kind })));
    }) : [el("li", { class: "hint", text: "No finished games yet." })]));
    const players = Object.entries(stats.players || {});
    const f = (x) => (x === null || x === undefined ? "–" : Number(x).toFixed(1));
    const head = [["Player", "Player"], ["G", "Games"], ["W", "Wins"], ["Sk", "Skunks given"], ["Hand", "Average hand"], ["Crib", "Average crib"], ["Peg", "Pegging per hand"], ["Best", "Best hand"]];
    $("#stats").replaceChildren(players.length ? el("table", { class: "stats" },
      el("thead", {}, el("tr", {}, ...head.map(([h, t]) => el("th", { scope: "col" }, el("abbr", { title: t, text: h }))))),
      el("tbody", {}, ...players.map(([name, p]) => el("tr", { "data-player": name }, el("td", { text: name }), el("td", { text: String(p.games) }), el("td", { text: String(p.wins) }),
        el("td", { text: String(p.skunks ?? 0) }), el("td", { text: f(p.average_hand) }), el("td", { text: f(p.average_crib) }),
        el("td", { text: f(p.pegging_per_hand) }), el("td", { text: String(p.best_hand ?? "–") }))))) : el("p", { class: "hint", text: "Figures appear after the first finished game." }));
    const latest = S.game ? [S.game.id, S.game.game_number] : games[0] ? [games[0].game_id, games[0].match_game] : null;
    if (latest) showRace(...latest); else { $("#race").replaceChildren(); $("#race-legend").replaceChildren(); }
  } catch (err) { toast(sayOf(err), null, 6); }
}
// Bug 4: the race is the game as it stands: a tap that was undone is not drawn (an undo takes
// the latest point off, a redo puts it back, a new tap forgets what could be redone).
function effectiveRace(points) {
  const out = [];
  const undone = [];
  for (const p of points) {
    if (p.type === "undo") { if (out.length > 1) undone.push(out.pop()); }
    else if (p.type === "redo") { undone.pop(); out.push(p); }
    else { out.push(p); if (p.type !== null) undone.length = 0; }
  }
  return out;
}
async function showRace(id, gameNumber) {
  try {
    const data = await api("GET", `/api/games/${id}/race`);
    const race = effectiveRace(data.race).filter((p) => !gameNumber || p.game_number === gameNumber);
    const root = $("#race");
    root.replaceChildren();
    const max = Math.max(data.target, ...race.flatMap((p) => p.scores));
    const L = 30; const W = 300; const T = 10; const H = 150;
    const x = (i) => L + (W * i) / Math.max(1, race.length - 1);
    const y = (v) => T + H - (H * v) / max;
    for (const v of [0, 30, 60, 90, 120].filter((v) => v <= max)) {
      root.append(svg("line", { x1: L, x2: L + W, y1: y(v), y2: y(v), class: "grid" }));
      const t = svg("text", { x: L - 4, y: y(v) + 4, "text-anchor": "end", class: "axis" }); t.textContent = String(v); root.append(t);
    }
    const xl = svg("text", { x: L + W / 2, y: T + H + 24, "text-anchor": "middle", class: "axis" });
    xl.textContent = `${race.length - 1} actions`; root.append(xl);
    const sides = race[0] ? race[0].scores.length : 0;
    for (let s = 0; s < sides; s++) {
      const pts = race.map((p, i) => `${x(i).toFixed(1)},${y(p.scores[s]).toFixed(1)}`).join(" ");
      root.append(svg("polyline", { points: pts, class: `race-line p${s}`, "data-side": String(s) }));
    }
    $("#race-title").textContent = `Score race · game ${id}${gameNumber > 1 ? ` (${gameNumber})` : ""}`;
    root.setAttribute("aria-label", `Score race of game ${id}: ` + data.names.map((n, s) => `${n} ${race.length ? race[race.length - 1].scores[s] : 0}`).join(", "));
    $("#race-legend").replaceChildren(...data.names.map((n, s) => el("span", { class: "legend-item" }, el("i", { class: `swatch p${s}` }), n)));
  } catch (err) { toast(sayOf(err), null, 6); }
}

// ---------------------------------------------------------------- settings, pairing, devices
async function loadSettings() {
  try {
    const st = await api("GET", "/api/settings");
    const form = $("#settings-form");
    form.brightness.value = st.brightness;
    $("#brightness-value").textContent = String(st.brightness);
    form.palette.value = st.palette;
    document.body.classList.toggle("colorblind", st.palette === "colorblind");
  } catch { /* the form keeps its defaults */ }
  try { const h = await api("GET", "/api/health"); S.devices = h.devices || {}; S.version = h.version; } catch { /* shown as unknown */ }
  renderDevices();
  renderPairState();
}
$("#settings-form").brightness.addEventListener("input", (ev) => { $("#brightness-value").textContent = ev.target.value; });
$("#settings-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  if (!S.token) { openPairing(); return; }
  const form = ev.target;
  try {
    const st = await api("PUT", "/api/settings", { brightness: Number(form.brightness.value), palette: form.palette.value });
    document.body.classList.toggle("colorblind", st.palette === "colorblind");
    toast(`Saved: brightness ${st.brightness}, ${st.palette === "colorblind" ? "colour-blind safe" : "classic"} colours.`);
    renderBoard();
  } catch (err) { toast(sayOf(err), null, 6); }
});
function renderDevices() {
  const list = $("#devices");
  if (!list) return;
  const words = { idle: "ready", busy: "working", waiting: "waiting", fault: "fault", absent: "not connected", lost: "lost, retrying", stopped: "stopped" };
  list.replaceChildren(...Object.entries(S.devices || {}).map(([name, d]) => el("li", { "data-device": name, "data-state": d.state || "unknown" },
    el("strong", { text: name }), ` ${words[d.state] || d.state || "unknown"}${d.kind ? ` (${d.kind})` : ""}${d.fault ? ` — ${d.fault}` : ""}`)));
}
function renderPairState() {
  $("#pair-state").textContent = S.token ? `This phone is paired${S.tokenName ? ` as “${S.tokenName}”` : ""} and can keep score.` : "This phone is watching. Pair it to keep score.";
  document.body.classList.toggle("readonly", !S.token);
  $("#pair-open").hidden = !!S.token;
  $("#watching").hidden = !!S.token;
  $("#settings-pair").hidden = !!S.token;
  $("#unpair").hidden = !S.token;
}
function forgetToken(message) {
  S.token = "";
  localStorage.removeItem("crib.token");
  renderAll();
  if (message) toast(message, null, 6);
}
// Pairing (issue 12). One request is on the board at a time, and it is asked for only when the
// person chooses a way (each phone may ask for three codes in ten minutes):
// - typed: the board lights a code; typing it here pairs (only this phone's code counts);
// - compare: this page shows the code of its own request, the board lights the same code, and
//   holding the board's undo button approves that request only; the page asks until it is.
const PAIR = { request: null, digits: 6, expiresAt: 0, poll: 0, tick: 0 };
const NUMBER_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"];
const CHECK_EVERY_MS = 2500; // the daemon answers 30 checks a minute per phone
// "482913" -> "482 913", as a person reads it off the board.
const groupCode = (code) => code.replace(/\B(?=(\d{3})+(?!\d))/g, " ");
// "try again in 540 s" -> "try again in 9 minutes": waits as a person says them.
const friendlyWait = (text) => text.replace(/in (\d+) s\b/g, (_, n) => {
  const s = Number(n);
  if (s < 90) return `in ${s} s`;
  const m = Math.ceil(s / 60);
  return `in ${m} minutes`;
});
function sentence(text) {
  const t = friendlyWait(String(text || "").trim());
  if (!t) return "";
  const s = t.charAt(0).toUpperCase() + t.slice(1);
  return /[.!?]$/.test(s) ? s : `${s}.`;
}
// The API's refusal as a sentence for the person holding the phone.
function pairSay(err) {
  if (err.network) return sentence(err.message);
  const code = err.data && err.data.code;
  if (code === "name_taken") return sentence(err.message);
  if (code === "pairing_busy") return sentence(err.message); // "Someone else is pairing; try again in 87 s."
  if (err.status === 429) return sentence(err.message);
  // A schema refusal (no sentence of the daemon's, only field details) is said in general terms.
  if (err.status === 413 || (err.status === 422 && !code)) return "The table did not understand that: check the name and the code.";
  return sentence(err.say || err.message);
}
function pairStep(step) {
  $("#pair-form").dataset.step = step;
  $("#pair-choose").hidden = step !== "choose";
  $("#pair-typed").hidden = step !== "typed";
  $("#pair-compare").hidden = step !== "compare";
  $("#pair-back").hidden = step === "choose";
}
function stopPairWait() {
  clearTimeout(PAIR.poll);
  clearInterval(PAIR.tick);
  PAIR.poll = 0;
  PAIR.tick = 0;
}
function pairError(text) { $("#pair-error").textContent = text; }
function openPairing() {
  const dialog = $("#pair-dialog");
  const form = $("#pair-form");
  stopPairWait();
  pairError("");
  form.code.value = "";
  if (!form.name.value) form.name.value = localStorage.getItem("crib.phone") || "phone";
  pairStep("choose");
  if (!dialog.open) dialog.showModal();
  $("#pair-type").focus();
}
async function askForCode(hold) {
  stopPairWait();
  pairError("");
  let out;
  try {
    out = await api("POST", "/api/pair/start", { hold });
  } catch (err) {
    PAIR.request = null;
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
function showPairWait() {
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
async function checkHeld() {
  if (!$("#pair-dialog").open || $("#pair-form").dataset.step !== "compare" || !PAIR.request) return;
  let next = CHECK_EVERY_MS;
  try {
    const out = await api("POST", "/api/pair", { request: PAIR.request, name: pairName() });
    paired(out);
    return;
  } catch (err) {
    const code = err.data && err.data.code;
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
const pairName = () => $("#pair-form").name.value.trim() || "phone";
function paired(out) {
  stopPairWait();
  PAIR.request = null;
  S.token = out.token;
  S.tokenName = out.name;
  localStorage.setItem("crib.token", S.token);
  localStorage.setItem("crib.phone", out.name);
  $("#pair-dialog").close();
  toast(`Paired as “${out.name}”. This phone can keep score.`);
  renderAll();
}
async function pairWithCode(code) {
  try {
    paired(await api("POST", "/api/pair", { code, name: pairName() }));
  } catch (err) {
    pairError(pairSay(err));
    const code = err.data && err.data.code;
    if (code === "name_taken") { $("#pair-form").name.focus(); return; }
    // A withdrawn or lapsed code cannot be typed any more: back to asking for one.
    if (code === "pairing_failed" && /withdrawn|no pairing is pending/.test(err.message)) {
      pairStep("choose");
      pairError(`${pairSay(err)} Choose a way to ask for a new code.`);
    }
  }
}
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
  if (!new RegExp(`^\\d{${PAIR.digits}}$`).test(code)) { pairError(`Type the ${PAIR.digits} digits the board shows.`); return; }
  pairWithCode(code);
});
$("#unpair").addEventListener("click", () => forgetToken("This phone is watching only now."));
// Issue 15.13: a token made on the Pi (`crib token create laptop`) pairs this phone too. It is
// checked with an empty settings change, which needs a token and changes nothing.
$("#token-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const token = $("#token-input").value.trim();
  const error = $("#token-error");
  if (!token) { error.textContent = "Paste the token that crib token create printed."; return; }
  let res;
  try {
    res = await fetch("/api/settings", { method: "PUT", headers: { "Content-Type": "application/json", Accept: "application/json", Authorization: `Bearer ${token}` }, body: "{}" });
  } catch { error.textContent = "The table's computer cannot be reached."; return; }
  if (res.status === 401 || res.status === 403) { error.textContent = "The table does not know that token: check it, or make one with crib token create."; return; }
  if (!res.ok) { error.textContent = `The table answered ${res.status}.`; return; }
  error.textContent = "";
  $("#token-input").value = "";
  S.token = token;
  S.tokenName = "token";
  localStorage.setItem("crib.token", token);
  localStorage.setItem("crib.phone", "token");
  toast("Paired with the token. This phone can keep score.");
  renderAll();
});

// ---------------------------------------------------------------- speech
// The count read aloud in the table's words, with the phone's own voices (works offline).
const canSpeak = () => typeof window.speechSynthesis !== "undefined" && typeof window.SpeechSynthesisUtterance !== "undefined";
const speakAll = () => localStorage.getItem("crib.speak") === "1";
function speak(text) {
  if (!text || !canSpeak()) return;
  S.spoken.push(text); // what was said, for the tests and the curious
  const u = new SpeechSynthesisUtterance(text);
  u.lang = document.documentElement.lang || "en";
  window.speechSynthesis.speak(u);
}
// What the table says after a tap: the engine's words for pegs and counts.
function spokenAction(a, game, before) {
  const pegged = peggedSince(before, game);
  switch (a.type) {
    case "play": return `${spoken(a.card)}${game.play ? `, ${game.play.count}` : ""}` + (pegged ? `. ${pegged}` : "");
    case "go": return describeAction(a, game, before);
    case "peg": case "late_peg": return `${a.points} for ${game.sides[a.side] ? game.sides[a.side].name : ""}`;
    case "heels": return describeAction(a, game, before);
    case "starter": return `starter, ${spoken(a.card)}${heelsPegged(game, before)}`;
    case "count": {
      const last = game.last_count;
      const say = last && last.breakdown && last.breakdown.say;
      return say ? `${last.label}: ${say}` : describeAction(a, game, before).replace(": 19 (nothing)", ": nineteen, nothing");
    }
    default: return describeAction(a, game, before);
  }
}
$("#speak-all").checked = speakAll();
$("#speak-all").disabled = !canSpeak();
$("#speak-note").textContent = canSpeak() ? "" : "This browser has no speech voices.";
$("#speak-all").addEventListener("change", (ev) => {
  localStorage.setItem("crib.speak", ev.target.checked ? "1" : "0");
  if (ev.target.checked) speak("Counts and pegs will be read aloud.");
});

// ---------------------------------------------------------------- start
function renderAll() {
  renderPairState();
  renderGame();
  renderCount();
  renderShuffler();
  renderBoard();
  renderDevices();
  renderLink();
}
async function start() {
  renderNameFields();
  renderAll();
  await loadRules();
  renderVariantChoices();
  renderNameFields();
  try { S.game = await api("GET", "/api/games/current"); } catch { S.game = null; }
  S.lastUpdate = Date.now();
  renderAll();
  connect();
}
start();
