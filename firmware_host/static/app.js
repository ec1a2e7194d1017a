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
const PLAYERS = { "six-card": 2, "five-card": 2, "three-player": 3, "four-player": 4 };
const HAND_SIZE = { "six-card": 4, "five-card": 3, "three-player": 4, "four-player": 4 };
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
  game: null,
  board: null,
  shuffler: null,
  devices: {},
  plans: {},
  lastUpdate: 0,
  live: false,
  seq: 0,
  pending: false,
};
window.cribState = S; // for the browser tests and curious players

// ---------------------------------------------------------------- HTTP
async function api(method, path, body) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (S.token) headers.Authorization = `Bearer ${S.token}`;
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  let data = null;
  try { data = await res.json(); } catch { data = null; }
  if (!res.ok) {
    const err = new Error((data && (data.error || data.detail)) || `${res.status} ${res.statusText}`);
    err.status = res.status;
    err.data = data;
    if (typeof err.message !== "string") err.message = JSON.stringify(err.message);
    throw err;
  }
  return data;
}

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
function describeAction(a, game) {
  const side = (i) => game && game.sides[i] ? game.sides[i].name : `side ${i + 1}`;
  switch (a.type) {
    case "peg": return `+${a.points} for ${side(a.side)}`;
    case "count": return a.cards ? "count entered" : `count of ${a.points}`;
    case "heels": return "two for his heels";
    case "muggins": return `muggins, ${a.points} for ${side(a.side)}`;
    case "play": return `${pretty(a.card)} played`;
    case "go": return "go";
    case "starter": return `starter ${pretty(a.card)}`;
    default: return a.type;
  }
}

async function act(action, { quiet = false } = {}) {
  const game = S.game;
  if (!game) return;
  if (!S.token) { openPairing(); return; }
  const body = { version: game.version, op_id: opId(), action };
  try {
    const out = await api("POST", `/api/games/${game.id}/actions`, body);
    setGame(out.game);
    if (!quiet && !["undo", "redo"].includes(action.type)) {
      // A five-second undo for every tap.
      toast(`${describeAction(action, out.game)}`, { label: "Undo", run: () => act({ type: "undo" }, { quiet: true }) }, 5);
    }
  } catch (err) {
    if (err.status === 409 && err.data && err.data.game) {
      // Another phone changed the game first: show its state and offer the tap again.
      setGame(err.data.game);
      toast(`The game changed on another phone; ${describeAction(action, err.data.game)} was not applied.`,
        { label: "Apply now", run: () => act(action) }, 8);
    } else if (err.status === 401 || err.status === 403) {
      toast("This phone is not paired: pair it to keep score.");
      openPairing();
    } else {
      if (err.data && err.data.game) setGame(err.data.game);
      toast(err.message, null, 6);
    }
  }
}

function setGame(game) {
  if (game && S.game && game.id === S.game.id && game.version < S.game.version) return; // stale echo
  S.game = game;
  S.lastUpdate = Date.now();
  renderGame();
  renderBoard();
}

// ---------------------------------------------------------------- live link
let ws = null;
let backoff = 500;
let retryTimer = 0;
function connect() {
  clearTimeout(retryTimer);
  if (ws && (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING)) return;
  const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/api/events`;
  try { ws = new WebSocket(url); } catch { scheduleReconnect(); return; }
  ws.onopen = () => { backoff = 500; S.live = true; renderLink(); };
  ws.onmessage = (ev) => {
    let msg;
    try { msg = JSON.parse(ev.data); } catch { return; }
    S.lastUpdate = Date.now();
    if (typeof msg.seq === "number") S.seq = msg.seq;
    onEvent(msg);
    renderLink();
  };
  ws.onclose = () => { S.live = false; renderLink(); scheduleReconnect(); };
  ws.onerror = () => { try { ws.close(); } catch { /* closing anyway */ } };
}
function scheduleReconnect() {
  clearTimeout(retryTimer);
  // Capped, jittered backoff, forever.
  const wait = Math.min(backoff, 15000) * (0.5 + Math.random());
  backoff = Math.min(backoff * 2, 15000);
  retryTimer = setTimeout(connect, wait);
}
function reconnectNow() {
  if (ws && ws.readyState === WebSocket.OPEN) return;
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
      if ("game" in msg) { S.game = msg.game; }
      if ("board" in msg) S.board = msg.board;
      if ("shuffler" in msg) S.shuffler = msg.shuffler;
      if ("devices" in msg) S.devices = msg.devices || {};
      renderAll();
      break;
    case "game":
      if (msg.game === null || msg.game === undefined) { S.game = null; renderGame(); renderBoard(); }
      else setGame(msg.game);
      break;
    case "board": S.board = msg.board || msg; renderBoard(); break;
    case "shuffler": S.shuffler = msg.shuffler || msg.status || msg; renderShuffler(); break;
    case "device":
      if (msg.name) S.devices[msg.name] = msg.device || msg.status || msg;
      renderDevices();
      break;
    default: break; // unknown types are ignored by design
  }
}

function renderLink() {
  const link = $("#link");
  const age = S.lastUpdate ? Math.round((Date.now() - S.lastUpdate) / 1000) : null;
  if (S.live) { link.textContent = S.token ? "live" : "live · watching"; link.className = "link live"; }
  else { link.textContent = age === null ? "offline" : `offline · updated ${age} s ago`; link.className = "link down"; }
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

// ---------------------------------------------------------------- new game
function knownNames() { try { return JSON.parse(localStorage.getItem("crib.names") || "[]"); } catch { return []; } }
function rememberNames(names) {
  const all = [...new Set([...names, ...knownNames()])].slice(0, 30);
  localStorage.setItem("crib.names", JSON.stringify(all));
}
function renderNameFields() {
  const variant = $("#variant").value;
  const n = PLAYERS[variant];
  const box = $("#name-fields");
  const old = $$("input", box).map((i) => i.value);
  const names = knownNames();
  box.replaceChildren();
  for (let i = 0; i < n; i++) {
    const label = variant === "four-player" ? `Player ${i + 1} (${i % 2 === 0 ? "partners A" : "partners B"})` : `Player ${i + 1}`;
    box.append(el("label", {}, label, el("input", {
      name: `name${i}`, list: "known-names", required: true, maxlength: 24, "aria-label": `Name of player ${i + 1}`,
      value: old[i] || names[i] || ["Ann", "Bob", "Cy", "Di"][i],
    })));
  }
  $("#known-names").replaceChildren(...names.map((x) => el("option", { value: x })));
  const dealer = $("#dealer-select");
  dealer.replaceChildren(el("option", { value: "", text: "Cut on the page" }),
    ...Array.from({ length: n }, (_, i) => el("option", { value: String(i), text: `Player ${i + 1}` })));
  $("#cut-result").textContent = "";
}
$("#variant").addEventListener("change", renderNameFields);

function randomIndex(n) {
  // Uniform without modulo bias.
  const buf = new Uint32Array(1);
  const limit = Math.floor(0x100000000 / n) * n;
  do crypto.getRandomValues(buf); while (buf[0] >= limit);
  return buf[0] % n;
}
function cutForDeal(n) {
  for (;;) {
    const deck = [];
    for (const r of RANKS) for (const [s] of SUITS) deck.push(r + s);
    const cuts = [];
    for (let i = 0; i < n; i++) cuts.push(deck.splice(randomIndex(deck.length), 1)[0]);
    const ranks = cuts.map((c) => RANKS.indexOf(c.slice(0, -1)));
    const low = Math.min(...ranks);
    if (ranks.filter((r) => r === low).length === 1) return { cuts, dealer: ranks.indexOf(low) };
    // A tie for low cuts again, as at the table.
  }
}
$("#cut-btn").addEventListener("click", () => {
  const form = $("#new-game");
  const n = PLAYERS[form.variant.value];
  const { cuts, dealer } = cutForDeal(n);
  const names = Array.from({ length: n }, (_, i) => form[`name${i}`].value || `Player ${i + 1}`);
  $("#cut-result").textContent = cuts.map((c, i) => `${names[i]} ${pretty(c)}`).join(", ") + ` — ${names[dealer]} deals (low card).`;
  $("#dealer-select").value = String(dealer);
});

$("#new-game").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  if (!S.token) { openPairing(); return; }
  const form = ev.target;
  const variant = form.variant.value;
  const n = PLAYERS[variant];
  const names = Array.from({ length: n }, (_, i) => form[`name${i}`].value.trim() || `Player ${i + 1}`);
  let dealer = form.dealer.value;
  if (dealer === "") { const cut = cutForDeal(n); dealer = cut.dealer; toast(`${names[dealer]} cut low and deals.`); }
  const body = { variant, names, skunk: form.skunk.value, muggins: form.muggins.checked, mode: form.mode.value, dealer: Number(dealer) };
  if (form.target.value) body.target = Number(form.target.value);
  try {
    const game = await api("POST", "/api/games", body);
    rememberNames(names);
    setGame(game);
  } catch (err) { toast(err.message, null, 6); }
});

// ---------------------------------------------------------------- game screen
const PAD = [1, 2, 3, 4, 6, 12];
function sideColour(i) { return `var(--p${i % 4})`; }

function renderGame() {
  const game = S.game;
  $("#no-game").hidden = !!game && !game.ended_by_user;
  $("#game").hidden = !game;
  if (!game) { renderNameFields(); return; }
  $("#no-game").hidden = true;
  const over = game.phase === "over" || !!game.result;
  const legal = new Set(game.legal || []);

  // The result, when a side has reached the target.
  const result = $("#result");
  if (game.result) {
    const r = game.result;
    const winner = game.sides[r.winner] ? game.sides[r.winner].name : "";
    const kind = { skunk: " — a skunk", double_skunk: " — a double skunk", lurch: " — lurched" }[r.kind] || "";
    result.textContent = `${winner} wins ${(r.scores || []).join(" to ")}${kind}` + (r.game_points > 1 ? ` (${r.game_points} games)` : "");
    result.hidden = false;
  } else result.hidden = true;

  // One panel per side, with its pad.
  const sides = $("#sides");
  sides.replaceChildren();
  game.sides.forEach((side, i) => {
    const tags = [];
    const dealerSide = game.dealer !== null && game.dealer !== undefined ? sideOfPlayer(game, game.dealer) : null;
    if (dealerSide === i) tags.push("deals");
    if (game.crib_owner === i || (game.crib_owner === undefined && dealerSide === i)) tags.push("crib");
    const num = el("input", { inputmode: "numeric", maxlength: 2, "aria-label": `Points for ${side.name}`, placeholder: "n" });
    const pad = el("div", { class: "pad write" },
      ...PAD.map((p) => el("button", {
        type: "button", text: `+${p}`, "aria-label": `Peg ${p} for ${side.name}`, disabled: over || !legal.has("peg"),
        onclick: () => act({ type: "peg", side: i, points: p }),
      })),
      el("div", { class: "num" }, num, el("button", {
        type: "button", text: "Peg", "aria-label": `Peg the number for ${side.name}`, disabled: over || !legal.has("peg"),
        onclick: () => {
          const v = Number(num.value);
          if (!Number.isInteger(v) || v <= 0) { toast("Type the points to peg, then tap Peg."); return; }
          act({ type: "peg", side: i, points: v });
        },
      })));
    const panel = el("article", { class: "side", style: `--c:${sideColour(i)}`, "data-side": String(i), "aria-label": side.name },
      el("header", {},
        el("span", { class: "name", text: side.name }),
        el("span", { class: "tags", text: tags.join(" · ") }),
        el("span", { class: "score", text: String(side.front), "data-front": String(side.front) })),
      el("div", { class: "back", text: `back peg ${side.back}` + (game.games_won ? ` · games ${game.games_won[i] || 0}` : "") }),
      game.mode === "cards" ? null : pad);
    sides.append(panel);
  });

  // The next count due, in show order.
  const due = $("#due");
  const order = (game.show_order || []).filter((x) => !x.done).map((x) => x.label);
  if (over) due.textContent = "";
  else if (order.length) due.textContent = `Next: ${order.join(", then ")}.`;
  else due.textContent = game.phase === "cut" ? "Cut for deal." : "";
  const next = game.next_count;
  $("#count-label").textContent = next ? `Count for ${next.label}` : "Count";
  $("#show-entry").hidden = over || !next || !legal.has("count");
  if (game.mode === "cards") {
    $("#count-input").hidden = true; $("#count-19").hidden = true;
    $("#count-send").textContent = next ? `Count ${next.label} on the Count tab` : "Count";
  } else {
    $("#count-input").hidden = false; $("#count-19").hidden = false; $("#count-send").textContent = "Count";
  }

  // Pegging by playing cards.
  const playBox = $("#play-cards");
  const showPlay = game.mode === "cards" && !over && (legal.has("play") || legal.has("go") || legal.has("starter"));
  playBox.hidden = !showPlay;
  if (showPlay) renderPlay(game, legal);

  $("#heels-btn").hidden = game.mode === "cards";
  $("#heels-btn").disabled = over || !legal.has("heels");
  $("#undo-btn").disabled = !game.can_undo;
  $("#redo-btn").disabled = !game.can_redo;
  $("#next-game").hidden = !over || !legal.has("next_game");
  renderMuggins(game, legal);
}

function sideOfPlayer(game, player) {
  const i = game.sides.findIndex((s) => (s.players || []).includes(player));
  return i < 0 ? player : i;
}

function renderPlay(game, legal) {
  const play = game.play || {};
  $("#play-count").textContent = String(play.count ?? 0);
  $("#play-seq").textContent = (play.cards || []).map(pretty).join(" ");
  const who = play.next_player ?? null;
  const name = who !== null && game.names ? game.names[who] : "";
  const needStarter = legal.has("starter");
  $("#play-who").textContent = needStarter ? "Tap the starter card." : (name ? `${name} to play.` : "");
  const used = new Set([...(play.played || []), ...(game.starter ? [game.starter] : [])]);
  const picker = $("#play-picker");
  buildPicker(picker, (card) => {
    if (needStarter) act({ type: "starter", card });
    else act({ type: "play", player: who, card });
  }, (card) => used.has(card));
  $("#go-btn").disabled = !legal.has("go");
  $("#go-btn").onclick = () => act({ type: "go", player: who });
}

function renderMuggins(game, legal) {
  const box = $("#muggins-box");
  const last = game.last_count;
  if (!game.muggins || !last || !legal.has("muggins")) { box.hidden = true; return; }
  box.hidden = false;
  const claimers = game.sides.map((s, i) => i).filter((i) => i !== last.side);
  const input = el("input", { inputmode: "numeric", maxlength: 2, "aria-label": "Points missed", value: last.missed ?? "" });
  box.replaceChildren(el("p", { text: `${last.label} was counted ${last.points}. Missed points? Call muggins:` }),
    el("div", { class: "row write" }, input, ...claimers.map((i) => el("button", {
      type: "button", class: "secondary", text: `Muggins for ${game.sides[i].name}`,
      onclick: () => act({ type: "muggins", side: i, points: Number(input.value) }),
    }))));
}

function sendCount(points) {
  const game = S.game;
  if (!game || !game.next_count) return;
  if (game.mode === "cards") { showTab("count"); return; }
  if (!Number.isInteger(points) || points < 0) { toast("Type the count, then tap Count."); return; }
  act({ type: "count", points });
  $("#count-input").value = "";
}
$("#count-send").addEventListener("click", () => {
  if (S.game && S.game.mode === "cards") { showTab("count"); return; }
  const v = $("#count-input").value.trim();
  sendCount(v === "" ? NaN : Number(v));
});
$("#count-19").addEventListener("click", () => sendCount(19));
$("#heels-btn").addEventListener("click", () => act({ type: "heels" }));
$("#undo-btn").addEventListener("click", () => act({ type: "undo" }, { quiet: true }));
$("#redo-btn").addEventListener("click", () => act({ type: "redo" }, { quiet: true }));
$("#next-game").addEventListener("click", () => act({ type: "next_game" }, { quiet: true }));
$("#hint-btn").addEventListener("click", () => showTab("count"));
$("#end-game").addEventListener("click", () => {
  if (S.game && !S.game.result && !confirm("Leave this game and start a new one?")) return;
  S.game = null; renderGame(); renderBoard();
});

// ---------------------------------------------------------------- card picker
function buildPicker(root, onPick, isDisabled = () => false, isPressed = () => false, pressedClass = () => "") {
  root.replaceChildren();
  for (const [s, glyph] of SUITS) {
    for (const r of RANKS) {
      const card = r + s;
      root.append(el("button", {
        type: "button", class: `${isRed(card) ? "red" : ""} ${pressedClass(card)}`.trim(), "data-card": card,
        "aria-label": card, "aria-pressed": String(isPressed(card)), disabled: isDisabled(card),
        onclick: () => onPick(card),
      }, el("span", { text: r }), el("span", { text: glyph })));
    }
  }
}

const C = { hand: [], starter: null, target: "hand", result: null };
function countVariant() { return S.game ? S.game.variant : "six-card"; }
function renderCount() {
  const size = HAND_SIZE[countVariant()];
  $("#pick-hand").setAttribute("aria-pressed", String(C.target === "hand"));
  $("#pick-starter").setAttribute("aria-pressed", String(C.target === "starter"));
  buildPicker($("#count-picker"), pickCountCard, () => false,
    (c) => C.hand.includes(c) || C.starter === c, (c) => (C.starter === c ? "starter" : ""));
  const chosen = $("#chosen");
  chosen.replaceChildren(...C.hand.map((c) => el("span", { class: isRed(c) ? "red" : "", "data-card": c, text: pretty(c) + " " })),
    C.starter ? el("span", { text: " | starter " }) : el("span", { class: "hint", text: C.hand.length < size ? ` (${size - C.hand.length} more)` : " — now the starter" }),
    C.starter ? el("span", { class: isRed(C.starter) ? "red" : "", "data-card": C.starter, text: pretty(C.starter) }) : null);
  renderBreakdown();
}
function pickCountCard(card) {
  const size = HAND_SIZE[countVariant()];
  if (C.hand.includes(card)) C.hand = C.hand.filter((c) => c !== card);
  else if (C.starter === card) C.starter = null;
  else if (C.target === "starter" || C.hand.length >= size) { C.starter = card; C.target = "hand"; }
  else { C.hand.push(card); if (C.hand.length === size && !C.starter) C.target = "starter"; }
  C.result = null;
  renderCount();
  if (C.hand.length === size && C.starter) countNow();
}
async function countNow() {
  try {
    C.result = await api("POST", "/api/count", { hand: C.hand, starter: C.starter, crib: $("#count-crib").checked, variant: countVariant() });
  } catch (err) { C.result = null; toast(err.message, null, 6); }
  renderBreakdown();
}
function renderBreakdown() {
  const box = $("#breakdown");
  const r = C.result;
  const send = $("#count-to-score");
  if (!r) { box.replaceChildren(); send.hidden = true; return; }
  const items = (r.combinations || []).map((combo) => el("li", {
    tabindex: 0, "data-kind": combo.kind,
    onclick: (ev) => highlight(combo.cards, ev.currentTarget), onfocus: (ev) => highlight(combo.cards, ev.currentTarget),
  }, `${combo.kind} ${(combo.cards || []).map(pretty).join(" ")} — ${combo.points}`));
  box.replaceChildren(el("div", { class: "total", text: String(r.total) }), el("p", { class: "say", text: r.say }), el("ul", {}, ...items));
  const game = S.game;
  send.hidden = !(game && game.next_count && !game.result);
  if (!send.hidden) send.textContent = `Send ${r.total} to ${game.next_count.label}`;
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
  if (game.mode === "cards") await act({ type: "count", cards: C.hand, points: C.result.total });
  else await act({ type: "count", points: C.result.total });
  showTab("score");
});
$("#advise-btn").addEventListener("click", async () => {
  const cards = [...C.hand, ...(C.starter ? [C.starter] : [])];
  const variant = countVariant();
  const want = variant === "six-card" ? 6 : 5;
  if (cards.length !== want) { toast(`Pick the ${want} cards you were dealt (hand and starter boxes both count).`); return; }
  const dealerSide = S.game ? sideOfPlayer(S.game, S.game.dealer) : null;
  const dealer = confirm("Are you the dealer? (OK = dealer, Cancel = pone)");
  try {
    const adv = await api("POST", "/api/advise", { hand: cards, dealer, variant, model: "random" });
    const rows = (adv.options || adv.discards || []).slice(0, 6);
    $("#advice").replaceChildren(el("p", { text: `Best for the ${dealer ? "dealer" : "pone"}${dealerSide !== null ? "" : ""}:` }),
      el("table", {}, el("tr", {}, ...["Throw", "Keep", "Hand", "Crib", "Net"].map((h) => el("th", { text: h }))),
        ...rows.map((o) => el("tr", {},
          el("td", { text: (o.discard || []).map(pretty).join(" ") }),
          el("td", { text: (o.keep || []).map(pretty).join(" ") }),
          el("td", { text: Number(o.hand_mean ?? o.expected_hand ?? 0).toFixed(2) }),
          el("td", { text: Number(o.crib_mean ?? o.expected_crib ?? 0).toFixed(2) }),
          el("td", { text: Number(o.net ?? 0).toFixed(2) })))));
  } catch (err) { toast(err.message, null, 6); }
});

// ---------------------------------------------------------------- shuffler
async function loadPlans() {
  const deck = Number($("#shuffle-form").deck.value);
  try {
    const out = await api("GET", `/api/shuffler/plans?deck=${deck}`);
    S.plans[deck] = out.plans || out;
  } catch { S.plans[deck] = null; }
  renderPlanQuality();
  renderShuffler();
}
function renderPlanQuality() {
  const form = $("#shuffle-form");
  const deck = Number(form.deck.value);
  const plans = S.plans[deck] || [];
  const p = Array.isArray(plans) ? plans.find((x) => x.plan === form.plan.value) : null;
  $("#plan-quality").textContent = p ? `${p.passes} passes, distance from a random deck ${Number(p.tv_distance ?? p.tv).toFixed(3)}: ${p.quality || p.sentence || ""}` : "";
}
$("#shuffle-form").addEventListener("change", (ev) => { if (ev.target.name === "deck") loadPlans(); else renderPlanQuality(); });
$("#shuffle-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  if (!S.token) { openPairing(); return; }
  const form = ev.target;
  try {
    const out = await api("POST", "/api/shuffler/shuffle", { deck: Number(form.deck.value), plan: form.plan.value });
    S.shuffler = out.status || out; renderShuffler();
  } catch (err) { toast(err.message, null, 6); }
});
$("#shuffle-continue").addEventListener("click", async () => {
  try { const out = await api("POST", "/api/shuffler/continue", {}); S.shuffler = out.status || out; renderShuffler(); } catch (err) { toast(err.message, null, 6); }
});
$("#shuffle-abort").addEventListener("click", async () => {
  try { const out = await api("POST", "/api/shuffler/abort", {}); S.shuffler = out.status || out; renderShuffler(); } catch (err) { toast(err.message, null, 6); }
});
function renderShuffler() {
  const st = S.shuffler;
  const box = $("#shuffle-status");
  if (!st) { box.replaceChildren(); $("#shuffle-continue").hidden = true; $("#shuffle-abort").hidden = true; return; }
  const running = ["busy", "waiting", "fault"].includes(st.state);
  const parts = [];
  if (st.passes_total) parts.push(el("div", { text: `Pass ${Math.min(st.passes_done + (st.state === "busy" ? 1 : 0), st.passes_total)} of ${st.passes_total}` + (st.deck_size ? ` · ${st.cards_this_pass} of ${st.deck_size} cards` : "") }));
  if (st.prompt) parts.push(el("div", { class: "prompt", text: st.prompt }));
  if (st.fault) parts.push(el("div", { class: "fault", text: st.fault }));
  if (st.quality && !running) parts.push(el("div", { class: "hint", text: st.quality }));
  if (st.passes_total) {
    const frac = (st.passes_done + (st.deck_size ? st.cards_this_pass / st.deck_size : 0)) / st.passes_total;
    parts.push(el("div", { class: "progress", role: "progressbar", "aria-valuenow": String(Math.round(frac * 100)), "aria-valuemin": "0", "aria-valuemax": "100" },
      el("div", { style: `width:${Math.round(Math.min(1, frac) * 100)}%` })));
  }
  parts.push(el("div", { class: "hint", "data-state": st.state, text: `Shuffler: ${st.state}` }));
  box.replaceChildren(...parts);
  $("#shuffle-continue").hidden = !(st.state === "waiting" || st.state === "fault");
  $("#shuffle-abort").hidden = !running;
}

// ---------------------------------------------------------------- board drawing
function holeXY(track, tracks, score, target) {
  // Each track is two columns: up the outside (1..60), down the inside (61..120).
  const laneW = 300 / tracks;
  const x0 = 30 + track * laneW + laneW * 0.25;
  const x1 = 30 + track * laneW + laneW * 0.65;
  const top = 50;
  const bottom = 470;
  const step = (bottom - top) / 65;
  const yOf = (i) => bottom - step * (i + Math.floor(i / 5) * 0.2);
  if (score <= 0) return [x0 + laneW * 0.2, bottom + 28];
  if (score >= target || score > 120) return [180, 22];
  if (score <= 60) return [x0, yOf(score - 1)];
  return [x1, yOf(120 - score)];
}
function renderBoard() {
  const root = $("#board-svg");
  if (!root) return;
  const game = S.game;
  const n = game ? game.sides.length : 2;
  const target = game ? game.target : 121;
  root.replaceChildren();
  root.append(svg("circle", { cx: 180, cy: 22, r: 7, class: "hole" }));
  for (let t = 0; t < n; t++) {
    for (let s = 1; s <= 120; s++) {
      const [x, y] = holeXY(t, n, s, 1000);
      root.append(svg("circle", { cx: x, cy: y, r: 2.6, class: "hole" }));
    }
    const [sx, sy] = holeXY(t, n, 0, target);
    root.append(svg("circle", { cx: sx, cy: sy, r: 4, class: "hole" }));
  }
  // Skunk lines across the board.
  if (game && game.skunk === "skunk") for (const line of [91, 61]) {
    if (line >= target) continue;
    const [, y] = holeXY(0, n, line, 1000);
    root.append(svg("line", { x1: 20, x2: 340, y1: y + 4, y2: y + 4, stroke: "#d9c9a0", "stroke-dasharray": "4 3" }));
  }
  if (!game) return;
  const read = S.board && S.board.tracks ? S.board.tracks : null;
  game.sides.forEach((side, t) => {
    for (const [kind, score] of [["back", side.back], ["front", side.front]]) {
      const [x, y] = holeXY(t, n, score, target);
      root.append(svg("circle", { cx: x, cy: y, r: kind === "front" ? 6 : 5, class: `peg ${kind}`,
        fill: getComputedStyle(document.body).getPropertyValue(`--p${t}`).trim() || "#f00",
        "data-track": String(t), "data-kind": kind, "data-score": String(score) }));
    }
  });
  const code = S.board && S.board.code;
  if (code) { const txt = svg("text", { x: 180, y: 270, "text-anchor": "middle", class: "code" }); txt.textContent = code; root.append(txt); }
  const note = $("#board-note");
  if (read) {
    const same = read.every((tr, i) => !game.sides[i] || (tr.front === game.sides[i].front && tr.back === game.sides[i].back));
    note.textContent = same ? "The board's LEDs show the same." : "The board is catching up…";
  } else note.textContent = "";
}

// ---------------------------------------------------------------- history and statistics
async function loadHistory() {
  try {
    const [hist, stats] = await Promise.all([api("GET", "/api/history"), api("GET", "/api/stats")]);
    const games = hist.games || hist;
    $("#history-list").replaceChildren(...games.map((g) => el("li", {}, el("button", {
      type: "button", onclick: () => showRace(g.id),
    }, el("span", { text: `${(g.names || []).join(" v ")}` }), el("span", { text: `${(g.scores || []).join("–")} ${g.result_kind || (g.result && g.result.kind) || ""}` })))));
    const players = stats.players || stats;
    const f = (x) => (x === null || x === undefined ? "–" : Number(x).toFixed(1));
    $("#stats").replaceChildren(el("table", { class: "stats" },
      el("tr", {}, ...["Player", "Games", "Wins", "Skunks", "Hand", "Crib", "Peg", "Best"].map((h) => el("th", { text: h }))),
      ...players.map((p) => el("tr", {}, el("td", { text: p.name }), el("td", { text: String(p.games) }), el("td", { text: String(p.wins) }),
        el("td", { text: String(p.skunks ?? 0) }), el("td", { text: f(p.average_hand ?? p.avg_hand) }), el("td", { text: f(p.average_crib ?? p.avg_crib) }),
        el("td", { text: f(p.average_pegging ?? p.avg_pegging) }), el("td", { text: String(p.best_hand ?? "–") })))));
  } catch (err) { toast(err.message, null, 6); }
}
async function showRace(id) {
  try {
    const data = await api("GET", `/api/games/${id}/race`);
    const race = data.race || data; // [{version, scores: [..]}, ...]
    const root = $("#race");
    root.hidden = false;
    root.replaceChildren();
    const max = Math.max(121, ...race.flatMap((p) => p.scores));
    const W = 320; const H = 160;
    const n = race.length || 1;
    const sides = race[0] ? race[0].scores.length : 0;
    for (let s = 0; s < sides; s++) {
      const pts = race.map((p, i) => `${10 + (W * i) / Math.max(1, n - 1)},${H + 10 - (H * p.scores[s]) / max}`).join(" ");
      root.append(svg("polyline", { points: pts, fill: "none", stroke: getComputedStyle(document.body).getPropertyValue(`--p${s}`).trim(), "stroke-width": 2.5 }));
    }
  } catch (err) { toast(err.message, null, 6); }
}

// ---------------------------------------------------------------- settings, pairing, devices
async function loadSettings() {
  try {
    const st = await api("GET", "/api/settings");
    const form = $("#settings-form");
    form.brightness.value = st.brightness;
    form.palette.value = st.palette;
    document.body.classList.toggle("colorblind", st.palette === "colorblind");
  } catch { /* the form keeps its defaults */ }
  try { const h = await api("GET", "/api/health"); S.devices = h.devices || {}; } catch { /* shown as unknown */ }
  renderDevices();
  renderPairState();
}
$("#settings-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  if (!S.token) { openPairing(); return; }
  const form = ev.target;
  try {
    const st = await api("PUT", "/api/settings", { brightness: Number(form.brightness.value), palette: form.palette.value });
    document.body.classList.toggle("colorblind", st.palette === "colorblind");
    localStorage.setItem("crib.palette", st.palette);
    toast("Saved.");
    renderBoard();
  } catch (err) { toast(err.message, null, 6); }
});
function renderDevices() {
  const list = $("#devices");
  if (!list) return;
  list.replaceChildren(...Object.entries(S.devices || {}).map(([name, d]) => el("li", { "data-device": name },
    `${name}: ${d.state || "unknown"}${d.kind ? ` (${d.kind})` : ""}${d.fault ? ` — ${d.fault}` : ""}`)));
}
function renderPairState() {
  $("#pair-state").textContent = S.token ? "This phone is paired and can keep score." : "This phone is watching. Pair it to keep score.";
  document.body.classList.toggle("readonly", !S.token);
  $("#pair-open").hidden = !!S.token;
}
async function openPairing() {
  const dialog = $("#pair-dialog");
  $("#pair-error").textContent = "";
  try { await api("POST", "/api/pair/start", {}); } catch (err) { $("#pair-error").textContent = err.message; }
  if (!dialog.open) dialog.showModal();
}
$("#pair-open").addEventListener("click", openPairing);
$("#pair-form").addEventListener("submit", async (ev) => {
  if (ev.submitter && ev.submitter.value === "cancel") return;
  ev.preventDefault();
  const form = ev.target;
  try {
    const out = await api("POST", "/api/pair", { code: form.code.value.trim(), name: form.name.value.trim() || "phone" });
    S.token = out.token;
    localStorage.setItem("crib.token", S.token);
    $("#pair-dialog").close();
    toast("Paired. This phone can keep score.");
    renderAll();
  } catch (err) { $("#pair-error").textContent = err.message; }
});
$("#unpair").addEventListener("click", () => { S.token = ""; localStorage.removeItem("crib.token"); renderAll(); });

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
  document.body.classList.toggle("colorblind", localStorage.getItem("crib.palette") === "colorblind");
  renderNameFields();
  renderAll();
  try { S.game = await api("GET", "/api/games/current"); } catch { S.game = null; }
  try { S.shuffler = await api("GET", "/api/shuffler"); } catch { /* comes with the snapshot */ }
  S.lastUpdate = Date.now();
  renderAll();
  connect();
}
start();
