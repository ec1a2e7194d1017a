// The club's standings page: polls the director every 2 s; every text is set as text.
const POLL_MS = 2000;
const $ = (id) => document.getElementById(id);

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}

function signed(n) { return n > 0 ? `+${n}` : String(n); }

function showStandings(s) {
  $("title").textContent = `Standings · ${s.night}`;
  $("round").textContent = s.round ? `round ${s.round}` : "no round yet";
  const body = $("standings").tBodies[0];
  body.replaceChildren(...s.rows.map((r) => {
    const tr = el("tr");
    tr.append(el("td", r.place, "place"), el("td", r.name, "name"),
      el("td", r.game_points, "gp"), el("td", `${r.won}-${r.lost}`, "wl"),
      el("td", signed(r.spread), "spread"));
    return tr;
  }));
  $("empty").hidden = s.rows.length > 0;
}

function showTables(t) {
  $("tables").replaceChildren(...t.tables.map((table) => {
    const li = el("li", null, table.online ? "table on" : "table off");
    const head = el("div", null, "head");
    head.append(el("span", table.table, "tname"),
      el("span", table.online ? "online" : "offline", table.online ? "state good" : "state bad"));
    li.append(head);
    if (table.game) {
      const g = el("div", null, "game");
      table.game.names.forEach((name, i) => {
        const side = el("div", null, table.game.winner === i ? "gside won" : "gside");
        side.append(el("span", name, "gname"), el("span", table.game.scores[i], "gscore"));
        g.append(side);
      });
      li.append(g);
    } else if (table.seated && table.seated.length) {
      li.append(el("div", `seated: ${table.seated.join(" v ")}`, "hint"));
    } else {
      li.append(el("div", "no game", "hint"));
    }
    return li;
  }));
  $("unmatched-box").hidden = t.unmatched.length === 0;
  $("unmatched").replaceChildren(...t.unmatched.map((r) => {
    const li = el("li");
    li.append(el("strong", `${r.table}: ${r.names.join(" v ")} ${r.scores.join("-")}`),
      el("span", ` — ${r.problem} (${r.id})`, "hint"));
    return li;
  }));
  const link = $("link");
  link.textContent = t.broker.connected ? "live" : t.broker.line;
  link.className = t.broker.connected ? "link live" : "link down";
}

async function poll() {
  try {
    const [s, t] = await Promise.all([fetch("/api/standings"), fetch("/api/tables")]);
    if (!s.ok || !t.ok) throw new Error(`HTTP ${s.status}/${t.status}`);
    showStandings(await s.json());
    showTables(await t.json());
  } catch (err) {
    $("link").textContent = "the director does not answer";
    $("link").className = "link down";
  } finally {
    setTimeout(poll, POLL_MS);
  }
}

poll();
