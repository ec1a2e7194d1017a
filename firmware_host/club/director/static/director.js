// The director's page: register, seat, correct, settle disputes, export, all with the
// director's token (kept in this tab's sessionStorage only). Every text is set as text.
const POLL_MS = 3000;
const KEY = "crib-director-token";
const $ = (id) => document.getElementById(id);

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}

function say(text, good) {
  const p = $("said");
  p.textContent = text;
  p.className = good ? "d-said good" : "d-said bad";
}

function token() { return sessionStorage.getItem(KEY) || ""; }

async function call(method, path, body) {
  const headers = { Authorization: `Bearer ${token()}` };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const r = await fetch(path, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (r.status === 401) {
    sessionStorage.removeItem(KEY);
    show(false);
    throw new Error("The token was not accepted: paste it again (crib club token).");
  }
  const data = r.headers.get("content-type")?.startsWith("application/json") ? await r.json() : null;
  if (!r.ok) {
    const why = data && (data.say || data.error);
    throw new Error(why || `The director answered ${r.status}.`);
  }
  return data;
}

function show(desk) {
  $("login").hidden = desk;
  $("desk").hidden = !desk;
}

// -- drawing ---------------------------------------------------------------------------
function drawPlayers(night, present) {
  const here = new Set(present);
  $("count").textContent = `(${present.length} present of ${night.players.length})`;
  $("players").replaceChildren(...night.players.map((name) => {
    const li = el("li", null, here.has(name) ? "" : "gone");
    const b = el("button", here.has(name) ? `${name} · leaves` : `${name} · back`, "d-quiet");
    b.type = "button";
    b.addEventListener("click", () => act(`${name} ${here.has(name) ? "left" : "is back"}`,
      () => call("POST", "/api/players/leave", { names: [name], back: !here.has(name) })));
    li.append(b);
    return li;
  }));
}

function drawRound(night) {
  const last = night.rounds[night.rounds.length - 1];
  $("round").textContent = last ? `round ${last.round}` : "no round yet";
  $("title").textContent = `Director · ${night.club} · ${night.night}`;
  if (!last) {
    $("seated-caption").textContent = "No round seated";
    $("seated").replaceChildren();
    $("byes").textContent = "";
    $("repeats").textContent = "";
    return;
  }
  $("seated-caption").textContent = `Round ${last.round}${last.forced ? " (seated by force)" : ""}`;
  $("seated").replaceChildren(...last.tables.filter((t) => t.names.length).map((t) => {
    const tr = el("tr");
    tr.append(el("td", t.table), el("td", t.names.join(" v ")));
    return tr;
  }));
  $("byes").textContent = last.byes.length ? `Bye: ${last.byes.join(", ")}` : "No byes this round.";
  $("repeats").textContent = last.repeats
    ? "Some players meet again this round: no seating of the players present avoids it."
    : "";
}

// Every change says why: the log keeps it beside the old and new values.
function reasonInput(hint) {
  const reason = el("input", null, "d-reason");
  reason.required = true; reason.maxLength = 200;
  reason.setAttribute("aria-label", "why");
  reason.placeholder = hint;
  return reason;
}

function fixForm(r) {
  const form = el("form", null, "d-fix");
  const field = (label, input) => {
    const l = el("label", label);
    l.append(input);
    return l;
  };
  const a = el("input");
  a.type = "number"; a.min = "0"; a.max = "1000"; a.value = r.scores[0];
  a.setAttribute("aria-label", `${r.names[0]}'s score`);
  const b = el("input");
  b.type = "number"; b.min = "0"; b.max = "1000"; b.value = r.scores[1];
  b.setAttribute("aria-label", `${r.names[1]}'s score`);
  const reason = reasonInput("why (score card checked…)");
  const fix = el("button", "Correct the scores");
  fix.type = "submit";
  const strike = el("button", "Strike it off", "d-quiet");
  strike.type = "button";
  form.append(field(r.names[0], a), field(r.names[1], b), reason, fix, strike);
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    act(`${r.id} corrected`, () => call("POST", `/api/results/${encodeURIComponent(r.id)}/correct`,
      { scores: [Number(a.value), Number(b.value)], reason: reason.value }));
  });
  strike.addEventListener("click", () => {
    if (!reason.value.trim()) { say("Say why before striking a result off."); reason.focus(); return; }
    act(`${r.id} struck off`, () => call("POST", `/api/results/${encodeURIComponent(r.id)}/correct`,
      { void: true, reason: reason.value }));
  });
  return form;
}

function drawResults(night) {
  const results = [...night.results].reverse();
  $("no-results").hidden = results.length > 0;
  $("results").replaceChildren(...results.map((r) => {
    const li = el("li");
    const head = el("div");
    head.append(el("span", r.status, `d-status ${r.status}`),
      el("span", ` ${r.table} · round ${r.round ?? "?"} · ${r.names.join(" v ")} ${r.scores.join("-")} (${r.kind})`));
    li.append(head);
    if (r.problem) li.append(el("div", r.problem, "d-hint"));
    if (r.corrections.length) {
      const c = r.corrections[r.corrections.length - 1];
      li.append(el("div", `corrected: ${c.reason}`, "d-hint"));
    }
    li.append(el("div", r.id, "d-hint"));
    if (r.status !== "void") li.append(fixForm(r));
    return li;
  }));
}

function drawDisputes(disputes) {
  const open = disputes.filter((d) => !d.resolved);
  $("no-disputes").hidden = open.length > 0;
  $("disputes").replaceChildren(...open.map((d) => {
    const li = el("li");
    const p = d.payload;
    const what = p.void ? "takes the game back" :
      `says ${p.sides.map((s) => `${s.names.join(" & ")} ${s.score}`).join(", ")}`;
    li.append(el("div", `${d.table}: ${d.result} (revision ${d.rev}) ${what}`),
      el("div", d.why, "d-hint"));
    const form = el("form", null, "d-fix");
    const reason = reasonInput("why");
    const take = el("button", "Count the table's");
    take.type = "submit";
    const keep = el("button", "Keep what is counted", "d-quiet");
    keep.type = "button";
    form.append(reason, take, keep);
    const settle = (accept) => act(`dispute ${d.seq} settled`, () =>
      call("POST", `/api/disputes/${d.seq}/resolve`, { accept, reason: reason.value }));
    form.addEventListener("submit", (ev) => { ev.preventDefault(); settle(true); });
    keep.addEventListener("click", () => {
      if (!reason.value.trim()) { say("Say why before settling it."); reason.focus(); return; }
      settle(false);
    });
    li.append(form);
    return li;
  }));
}

// -- actions ---------------------------------------------------------------------------
async function act(done, run) {
  try {
    await run();
    say(`Done: ${done}.`, true);
  } catch (err) {
    say(err.message);
  }
  await refresh();
}

async function download(path, name) {
  try {
    const r = await fetch(path, { headers: { Authorization: `Bearer ${token()}` } });
    if (!r.ok) throw new Error(`The export answered ${r.status}: is the token right?`);
    const url = URL.createObjectURL(await r.blob());
    const a = el("a");
    a.href = url; a.download = name;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
    say(`Downloaded ${name}.`, true);
  } catch (err) {
    say(err.message);
  }
}

let busy = false;
async function refresh() {
  if (!token() || busy) return;
  busy = true;
  try {
    const [night, players] = await Promise.all([call("GET", "/api/night"), call("GET", "/api/players")]);
    drawPlayers(night, players.present);
    drawRound(night);
    drawDisputes(night.disputes);
    // A form being typed in is not redrawn under the director's fingers.
    if (!$("results").contains(document.activeElement)) drawResults(night);
  } catch (err) {
    say(err.message);
  } finally {
    busy = false;
  }
}

async function login(given) {
  sessionStorage.setItem(KEY, given);
  try {
    await call("GET", "/api/director");
    show(true);
    say("Token accepted.", true);
    await refresh();
  } catch (err) {
    say(err.message);
  }
}

$("token-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  login($("token").value.trim());
  $("token").value = "";
});
$("register-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const names = $("names").value.split("\n").map((n) => n.trim()).filter(Boolean);
  act(`${names.length} registered`, async () => {
    await call("POST", "/api/players", { names });
    $("names").value = "";
  });
});
$("seat-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  act("the next round seated", () => call("POST", "/api/rounds", { force: $("force").checked }));
  $("force").checked = false;
});
$("export-cards").addEventListener("click", () => download("/api/export/scorecards.csv", "scorecards.csv"));
$("export-standings").addEventListener("click", () => download("/api/export/standings.csv", "standings.csv"));

if (token()) login(token()); else show(false);
setInterval(refresh, POLL_MS);
