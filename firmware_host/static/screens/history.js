// The History screen: finished games, per-player figures and the score race.
import { $, el, svg } from "../js/dom.js";
import { api, sayOf } from "../js/net.js";
import { state, subscribe } from "../js/store.js";
import { toast } from "../js/toast.js";

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
    const latest = state.game ? [state.game.id, state.game.game_number] : games[0] ? [games[0].game_id, games[0].match_game] : null;
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

// The screen's controls, wired once the page has loaded.
export function mount() {
  subscribe(["tab"], () => { if (state.tab === "history") loadHistory(); });
}

export { loadHistory as render };
