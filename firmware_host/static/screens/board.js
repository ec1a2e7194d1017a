// The Board screen: a drawing of the board as its LEDs show it, read back from the board.
import { $, $$, el, svg } from "../js/dom.js";
import { api } from "../js/net.js";
import { state, subscribe } from "../js/store.js";

function applyPalette() {
  const palette = state.board && state.board.palette;
  if (palette) document.body.classList.toggle("colorblind", palette === "colorblind");
}
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
  const game = state.game;
  const sides = game ? game.sides : [];
  const tracks = state.board && state.board.tracks ? state.board.tracks : [];
  const n = Math.max(1, game ? sides.length : Math.min(tracks.length || 2, 3));
  return Array.from({ length: n }, (_, t) => tracks[t] || sides[t] || { front: 0, back: 0 });
}
function renderBoard() {
  const root = $("#board-svg");
  if (!root) return;
  const game = state.game;
  const shown = pegsShown();
  const n = shown.length;
  const target = game ? game.target : (state.board && state.board.target) || 121;
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
      const names = state.game ? state.game.sides.map((x) => x.name) : [];
      const off = names.slice(tracks);
      const missing = off.length ? ` The board has ${tracks} tracks: ${off.join(" and ")} ${off.length > 1 ? "are" : "is"} on this page only.` : "";
      ledTries++;
      if (same) note.textContent = "The board's LEDs show the same (read back just now)." + missing;
      else if (ledTries >= LED_TRIES) note.textContent = `The board has not shown the latest pegs after ${Math.round(LED_TRIES * 0.3)} s; the drawing shows what was sent to it.` + missing;
      else { note.textContent = "The board is catching up…" + missing; checkLeds(true); }
    } catch (err) { note.textContent = err.status === 503 ? "The board is not connected." : ""; }
  }, 300);
}

// The screen's controls, wired once the page has loaded.
export function mount() {
  subscribe(["game", "board"], (topic) => { if (topic !== "game") applyPalette(); renderBoard(); });
  subscribe(["tab"], () => { if (state.tab === "board") renderBoard(); });
}

export { renderBoard as render };
