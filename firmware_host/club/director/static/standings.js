// The club's big screen (and the phones' standings): polls the director every 2 s and
// draws what it says; every text is set as text. On a TV (landscape, 1000 px or wider)
// the screen never scrolls: the standings, the tables and the bracket are cut into pages
// that turn on their own every CYCLE seconds (`?cycle=N` sets it); on a phone it scrolls.
const POLL_MS = 2000;
const params = new URLSearchParams(location.search);
const CYCLE_MS = 1000 * Math.max(2, Number(params.get("cycle")) || 10);
const TV = matchMedia("(min-width: 1000px) and (min-aspect-ratio: 4/3)");
const WIDE = matchMedia("(min-aspect-ratio: 3/2)");
const ROWS = 20; // rows a TV column holds (the rows are sized in vh to fit 20)
const LEAVES = 8; // first-column matches a TV bracket page holds
const $ = (id) => document.getElementById(id);

const data = { standings: null, tables: null, rounds: null, tour: null, ok: false };
let tick = 0;

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}

function signed(n) { return n > 0 ? `+${n}` : String(n); }

// The `page`-th of `items` cut in pages of `size` (all of them off a TV), with its label.
function paged(items, size, label) {
  const pages = TV.matches ? Math.max(1, Math.ceil(items.length / size)) : 1;
  const page = tick % pages;
  $(label).textContent = pages > 1 ? `${page + 1}/${pages}` : "";
  return pages > 1 ? items.slice(page * size, (page + 1) * size) : items;
}

function standingsTable(rows, seeded) {
  const table = el("table", null, "standings");
  const head = table.createTHead().insertRow();
  const cols = [["#", "place"], ["Name", "name"], ["GP", "gp"], ["W-L", "wl"],
    ["Spread", "spread"]];
  for (const [text, cls] of cols) {
    const th = el("th", text, cls);
    th.scope = "col";
    if (text === "GP") th.title = "game points";
    head.append(th);
  }
  const body = table.createTBody();
  for (const r of rows) {
    const tr = body.insertRow();
    if (seeded && r.seed) tr.className = "seeded";
    const name = el("td", r.name, "name");
    if (seeded && r.seed) name.append(el("span", ` seed ${r.seed}`, "seed"));
    tr.append(el("td", r.place, "place"), name, el("td", r.game_points, "gp"),
      el("td", `${r.won}-${r.lost}`, "wl"), el("td", signed(r.spread), "spread"));
  }
  return table;
}

function showStandings(rows, seeded) {
  const cols = TV.matches && WIDE.matches ? 2 : 1;
  const shown = paged(rows, ROWS * cols, "standings-page");
  const parts = [];
  for (let c = 0; c < cols && (c === 0 || shown.length > c * ROWS); c += 1) {
    parts.push(standingsTable(TV.matches ? shown.slice(c * ROWS, (c + 1) * ROWS) : shown,
      seeded));
    if (!TV.matches) break;
  }
  $("standings").replaceChildren(...parts);
  $("empty").hidden = rows.length > 0;
}

// The current round's seat at each table, and its live game when it is that seat's.
function tableRows() {
  const rounds = (data.rounds && data.rounds.rounds) || [];
  const last = rounds.length ? rounds[rounds.length - 1] : null;
  const seated = new Map((last ? last.tables : []).map((t) => [t.table, t.names]));
  const live = new Map(((data.tables && data.tables.tables) || []).map((t) => [t.table, t]));
  const bracket = data.tour && data.tour.bracket;
  const decided = new Map((bracket ? bracket.rounds.flatMap((r) => r.matches) : [])
    .filter((m) => m.winner && m.table && m.score).map((m) => [m.table, m]));
  // The configured order when the director gives it; else t2 before t10.
  const order = (data.tables && data.tables.order) || [...new Set([...seated.keys(),
    ...live.keys()])].sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
  return order.map((name) => {
    const t = live.get(name) || { table: name, online: false };
    const names = seated.get(name) || [];
    let game = t.game || null;
    const same = game && names.length === 2 && (game.round !== undefined && game.round !== null
      ? game.round === last.round
      : [...game.names].sort().join("\n") === [...names].sort().join("\n"));
    if (!same) game = null; // last round's game: the new seating is what the room needs
    const m = decided.get(name);
    const counted = t.result; // this round's counted result at the table, when given
    if (!game && counted && names.length === 2) {
      game = { names: counted.names, scores: counted.scores, winner: counted.winner, hand: "" };
    } else if (!game && m && names.length === 2 && m.players.every((p) => names.includes(p))) {
      const w = m.players.indexOf(m.winner); // a counted knockout game, no live state left
      game = { names: m.players, winner: w, hand: "",
        scores: w === 0 ? m.score : [m.score[1], m.score[0]] };
    }
    return { name, online: t.online, names, game };
  });
}

function showTables() {
  const rows = tableRows().filter((r) => r.names.length === 2 || !TV.matches);
  const shown = paged(rows, ROWS, "tables-page");
  $("tables").replaceChildren(...shown.map((r) => {
    const state = r.game ? (r.game.winner !== null && r.game.winner !== undefined
      ? "done" : "live") : r.names.length === 2 ? "seated" : "free";
    const li = el("li", null, `trow ${state}${r.online ? "" : " off"}`);
    li.append(el("span", r.name, "tname"));
    if (r.names.length !== 2) {
      li.append(el("span", "no game this round", "hint wide"));
    } else {
      const names = r.game ? r.game.names : r.names;
      const scores = r.game ? r.game.scores : ["", ""];
      names.forEach((n, i) => {
        const won = r.game && r.game.winner === i;
        const side = el("span", null, `side s${i}${won ? " won" : ""}`);
        side.append(el("span", n, "pname"), el("span", scores[i], "pscore"));
        li.append(side);
      });
      li.append(el("span", state === "seated" ? "to start" : state === "done" ? "won"
        : `hand ${r.game.hand}`, "tstate"));
    }
    // On a TV the state column says it; on a phone a line of its own.
    if (!r.online && TV.matches && state !== "done") {
      li.lastChild.textContent = "offline";
      li.lastChild.classList.add("down");
    }
    else if (!r.online) li.append(el("span", "offline", "offline"));
    return li;
  }));
  const rounds = (data.rounds && data.rounds.rounds) || [];
  const byes = rounds.length ? rounds[rounds.length - 1].byes : [];
  $("byes").hidden = byes.length === 0;
  $("byes").textContent = byes.length ? `Bye: ${byes.join(", ")}` : "";
}

function matchBox(m) {
  const box = el("li", null, `match${m.winner ? " decided" : ""}`);
  m.players.forEach((p, i) => {
    const won = m.winner && m.winner === p;
    const line = el("div", null, `mline${won ? " won" : ""}`);
    line.append(el("span", m.seeds[i] || "", "mseed"),
      el("span", p === null ? (m.bye ? "bye" : "…") : p, "mname"));
    if (m.score) line.append(el("span", won ? m.score[0] : m.score[1], "mscore"));
    box.append(line);
  });
  if (m.table && !m.winner) box.append(el("div", `at ${m.table}`, "mtable"));
  return box;
}

function showBracket(b) {
  // A TV shows four rounds from the one being played, and pages through its subtrees.
  let first = b.rounds.findIndex((r) => r.matches.some((m) => !m.winner));
  if (first < 0) first = b.rounds.length - 1;
  const start = TV.matches ? Math.max(0, Math.min(first, b.rounds.length - 4)) : 0;
  const rounds = TV.matches ? b.rounds.slice(start, start + 4) : b.rounds;
  const leaves = rounds[0].matches.length;
  const pages = TV.matches ? Math.max(1, Math.ceil(leaves / LEAVES)) : 1;
  const page = tick % pages;
  $("bracket-page").textContent = pages > 1 ? `${page + 1}/${pages}` : "";
  const cols = rounds.map((r, k) => {
    const per = Math.max(1, Math.floor(Math.min(leaves, LEAVES) / 2 ** k));
    const from = pages > 1 ? Math.floor(page * per) : 0;
    const col = el("section", null, "bround");
    col.setAttribute("aria-label", r.name);
    col.append(el("h3", r.name));
    const list = el("ul");
    list.append(...(pages > 1 ? r.matches.slice(from, from + per) : r.matches).map(matchBox));
    col.append(list);
    return col;
  });
  if (b.champion) {
    const col = el("section", null, "bround champion");
    col.setAttribute("aria-label", "Champion");
    col.append(el("h3", "Champion"), el("p", b.champion, "champ"));
    cols.push(col);
  }
  $("bracket").replaceChildren(...cols);
}

function roundLabel() {
  const t = data.tour;
  const s = data.standings;
  if (t && t.stage === "qualifying") return `qualifying round ${t.qualifying_round} of ${t.games}`;
  if (t && t.stage === "done") return `champion: ${t.bracket.champion}`;
  if (t && t.stage === "knockout") {
    const r = t.bracket.rounds.find((x) => x.matches.some((m) => !m.winner));
    return r ? r.name : "knockout";
  }
  return s && s.round ? `round ${s.round}` : "no round yet";
}

function render() {
  if (!data.standings || !data.tables) return;
  const t = data.tour && data.tour.stage !== "none" ? data.tour : null;
  $("title").textContent = `${t ? "Tournament" : "Standings"} · ${data.standings.night}`;
  $("round").textContent = roundLabel();
  const knockout = Boolean(t && t.bracket);
  $("bracket-box").hidden = !knockout;
  $("standings-box").hidden = knockout && TV.matches;
  $("screen").classList.toggle("knockout", knockout);
  showStandings(t ? t.standings : data.standings.rows, Boolean(t));
  if (knockout) showBracket(t.bracket);
  showTables();
  const un = data.tables.unmatched || [];
  $("unmatched-box").hidden = un.length === 0;
  $("unmatched").replaceChildren(...un.map((r) => {
    const li = el("li");
    li.append(el("strong", `${r.table}: ${r.names.join(" v ")} ${r.scores.join("-")}`),
      el("span", ` — ${r.problem} (${r.id})`, "hint"));
    return li;
  }));
  const link = $("link");
  if (!data.ok) {
    link.textContent = "the director does not answer";
    link.className = "link down";
  } else {
    link.textContent = data.tables.broker.connected ? "live" : data.tables.broker.line;
    link.className = data.tables.broker.connected ? "link live" : "link down";
  }
}

async function getJSON(path) {
  const r = await fetch(path);
  if (!r.ok) throw new Error(`${path}: HTTP ${r.status}`);
  return r.json();
}

async function poll() {
  try {
    const [s, t, r] = await Promise.all(["/api/standings", "/api/tables", "/api/rounds"]
      .map(getJSON));
    let tour = null;
    try { tour = await getJSON("/api/tournament"); } catch (err) { tour = data.tour; }
    Object.assign(data, { standings: s, tables: t, rounds: r, tour, ok: true });
  } catch (err) {
    data.ok = false;
  } finally {
    render();
    setTimeout(poll, POLL_MS);
  }
}

setInterval(() => { tick += 1; render(); }, CYCLE_MS);
TV.addEventListener("change", render);
poll();
