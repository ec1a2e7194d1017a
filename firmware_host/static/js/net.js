// The network: HTTP to the daemon and the live link (/api/events) with its status. What comes
// in is published to the store (the game, each step's events, the board, ...); this module
// imports no screen and no action.
import { $ } from "./dom.js";
import { forgetToken, publish, setGame, state, subscribe } from "./store.js";

// Operation ids: crypto.randomUUID needs a secure context, which plain HTTP on a LAN is not.
export const opId = () => [...crypto.getRandomValues(new Uint8Array(16))]
  .map((b) => b.toString(16).padStart(2, "0")).join("");
export async function api(method, path, body) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (state.token) headers.Authorization = `Bearer ${state.token}`;
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
    if (res.status === 401 && state.token) forgetToken("This phone's pairing is no longer valid: pair it again.");
    throw err;
  }
  return data;
}

export const sayOf = (err) => err.say || err.message;

// The live link. A heartbeat asks the daemon every HEARTBEAT_MS; one that fails or takes
// longer than HEARTBEAT_TIMEOUT_MS marks the link offline at once (a Wi-Fi drop leaves the
// WebSocket looking open until TCP notices, minutes later), and the first that answers again
// reconnects and sends the taps kept meanwhile.
const HEARTBEAT_MS = 1500;
const HEARTBEAT_TIMEOUT_MS = 3000;
const BACKOFF_MAX = 5000;
const link = { ws: null, wanted: false, backoff: 500, retry: 0, beat: 0, beating: false, waiters: [],
  refused: 0, poll: 0 };
// When every live stream is taken (the daemon refuses, or closes ours with 1013 to make room
// for a paired phone), the game is read over HTTP meanwhile, every POLL_MS (the daemon's poll_s).
const POLL_MS = 5000;

export function connect() {
  link.wanted = true;
  clearTimeout(link.retry);
  const ws = link.ws;
  if (ws && (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING)) return;
  const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/api/events`;
  let mine;
  // A paired page shows its token the one way a browser can, as a subprotocol: the daemon
  // keeps room for paired phones when others hold the streams.
  const protocols = state.token ? ["crib", `bearer.${state.token}`] : ["crib"];
  try { mine = new WebSocket(url, protocols); } catch { scheduleReconnect(); return; }
  link.ws = mine;
  let opened = false;
  mine.onopen = () => { opened = true; link.refused = 0; stopPolling(); link.backoff = 500; };
  mine.onmessage = (ev) => {
    if (link.ws !== mine) return;
    let msg;
    try { msg = JSON.parse(ev.data); } catch { return; }
    state.lastUpdate = Date.now();
    if (typeof msg.seq === "number") {
      // A gap means deltas were lost: start over with a fresh snapshot.
      if (msg.type !== "snapshot" && state.seq && msg.seq > state.seq + 1) { state.seq = 0; reconnectNow(true); return; }
      state.seq = msg.seq;
    }
    onEvent(msg);
    if (msg.type === "snapshot") setLive(true);
    renderLink();
  };
  mine.onclose = (ev) => {
    if (link.ws !== mine) return;
    link.ws = null;
    if (!opened) link.refused++;
    if (ev.code === 1013 || link.refused >= 2) startPolling();
    setLive(false);
    renderLink();
    scheduleReconnect();
  };
  mine.onerror = () => { try { mine.close(); } catch { /* closing anyway */ } };
}
function startPolling() {
  if (link.poll) return;
  state.polling = true;
  link.poll = setInterval(async () => {
    try { setGame(await api("GET", "/api/games/current")); } catch { /* no game, or away: next time */ }
    renderLink();
  }, POLL_MS);
}
function stopPolling() {
  clearInterval(link.poll);
  link.poll = 0;
  state.polling = false;
}
function scheduleReconnect() {
  clearTimeout(link.retry);
  // Capped, jittered backoff, forever.
  const wait = Math.min(link.backoff, BACKOFF_MAX) * (0.5 + Math.random() / 2);
  link.backoff = Math.min(link.backoff * 2, BACKOFF_MAX);
  link.retry = setTimeout(connect, wait);
}
function reconnectNow(force = false) {
  if (!link.wanted) return; // the page connects once it has started
  const ws = link.ws;
  if (!force && ws && ws.readyState === WebSocket.OPEN) return;
  link.backoff = 500;
  link.ws = null;
  if (ws) { try { ws.close(); } catch { /* ignore */ } }
  connect();
}
function setLive(live) {
  if (state.live === live) return;
  state.live = live;
  if (live) for (const wake of link.waiters.splice(0)) wake();
  publish("link");
}
// Resolves when the live link is up again (at once when it is up).
export function whenLive() {
  if (state.live) return Promise.resolve();
  return new Promise((resolve) => link.waiters.push(resolve));
}
// One heartbeat: an answer keeps the link live; no answer in time marks it offline and drops
// the stream, which is opened again (with a fresh snapshot) once an answer comes.
async function heartbeat() {
  if (link.beating || !link.wanted) return;
  link.beating = true;
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), HEARTBEAT_TIMEOUT_MS);
  let ok = false;
  try {
    const res = await fetch("/api/health", { headers: { Accept: "application/json" }, cache: "no-store", signal: stop.signal });
    ok = res.ok;
  } catch { ok = false; }
  clearTimeout(timer);
  link.beating = false;
  if (!ok) {
    const ws = link.ws;
    link.ws = null;
    if (ws) { ws.onclose = null; try { ws.close(); } catch { /* already gone */ } }
    setLive(false);
  } else if (!state.live) reconnectNow(true);
}
function onEvent(msg) {
  switch (msg.type) {
    case "snapshot":
      state.game = msg.game || null;
      state.board = msg.board || null;
      state.shuffler = msg.shuffler || null;
      state.devices = msg.devices || {};
      publish("all");
      break;
    case "game":
      if (!msg.game) { state.game = null; publish("game"); break; }
      setGame(msg.game);
      // What the step did, for every phone to show (and the one that speaks to say).
      if (Array.isArray(msg.events) && msg.events.length) {
        state.steps.push({ game: msg.game, events: msg.events });
        publish("step");
      }
      break;
    case "board": state.board = msg.board; publish("board"); break;
    case "shuffler": state.shuffler = msg.shuffler; state.shufflerSeen++; publish("shuffler"); break;
    case "device":
      // {device, kind, data}: a "state" change carries the device's whole description.
      if (msg.kind === "state" && msg.device) { state.devices[msg.device] = { ...(state.devices[msg.device] || {}), ...(msg.data || {}) }; publish("devices"); }
      break;
    default: break; // unknown types are ignored by design
  }
}

function renderLink() {
  const link = $("#link");
  const age = state.lastUpdate ? Math.round((Date.now() - state.lastUpdate) / 1000) : null;
  if (state.live) { link.textContent = state.token ? "live" : "live · watching"; link.className = "link live"; }
  else if (state.polling) { link.textContent = `live view busy · checking every ${POLL_MS / 1000} s`; link.className = "link down"; }
  else { link.textContent = age === null ? "offline" : `offline · updated ${age} s ago`; link.className = "link down"; }
  document.body.classList.toggle("offline", !state.live && !state.polling);
}

// The link's status and the heartbeat, started once the page has loaded.
export function mount() {
  subscribe(["link"], renderLink);
  document.addEventListener("visibilitychange", () => { if (document.visibilityState === "visible") { reconnectNow(); heartbeat(); } });
  window.addEventListener("online", reconnectNow);
  window.addEventListener("pageshow", reconnectNow);

  setInterval(renderLink, 1000);
  link.beat = setInterval(heartbeat, HEARTBEAT_MS);
}
