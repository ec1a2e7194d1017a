// The new-game form on the Score tab, and the cut for deal.
import { cutForDeal } from "../js/actions.js";
import { $, $$, el } from "../js/dom.js";
import { api, sayOf } from "../js/net.js";
import { sidesOfVariant, variantRules } from "../js/rules.js";
import { publish, setGame, state, subscribe } from "../js/store.js";
import { toast } from "../js/toast.js";

function knownNames() { try { return JSON.parse(localStorage.getItem("crib.names") || "[]"); } catch { return []; } }
function rememberNames(names) {
  const all = [...new Set([...names, ...knownNames()])].slice(0, 30);
  localStorage.setItem("crib.names", JSON.stringify(all));
}
function renderVariantChoices() {
  const select = $("#variant");
  const variants = (state.rules.catalogue && state.rules.catalogue.variants) || [];
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
  const rules = (state.rules.catalogue && state.rules.catalogue.skunk_rules) || [];
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
function boardTracks() { return state.board && Array.isArray(state.board.tracks) ? state.board.tracks.length : null; }
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
// The API's checks of the new-game form's fields, in the table's words: "target: Input should
// be greater than or equal to N" -> "The points to win must be N or more." (N is the API's.)
const FORM_FIELDS = { target: "The points to win" };
function sayProblem(problem) {
  const m = /^([a-z_]+): Input should be (greater|less) than or equal to (\d+)$/.exec(problem);
  return m && FORM_FIELDS[m[1]] ? `${FORM_FIELDS[m[1]]} must be ${m[3]} or ${m[2] === "greater" ? "more" : "less"}.` : null;
}


// The club night: the director's seating starts this table's game in one tap, and the
// club's line ("club: offline, 2 results waiting") shows while the table is in a club.
let seating = null;
async function refreshClub() {
  let club;
  try { club = await api("GET", "/api/club"); } catch { return; }
  const line = $("#club-line");
  line.hidden = !club.enabled;
  line.textContent = club.line || "";
  seating = club.seating && club.seating.names.length >= 2 ? club.seating : null;
  const seat = $("#club-seat");
  seat.hidden = !seating;
  if (seating) $("#club-start").textContent = `Round ${seating.round}: ${seating.names.join(" v ")} — start`;
}

async function startSeated() {
  if (!state.token) { publish("pair"); return; }
  try {
    let game = await api("POST", "/api/club/start", {});
    if ((game.legal || []).includes("cut")) game = await cutForDeal(game);
    state.leftGameId = null;
    setGame(game);
    window.scrollTo(0, 0);
  } catch (err) {
    toast(sayOf(err), null, 6);
  }
  refreshClub();
}

// The screen's controls, wired once the page has loaded.
export function mount() {
  $("#club-start").addEventListener("click", startSeated);
  refreshClub();
  // A seating or an outage shows within a quarter of a minute; a club-less table asks once.
  setInterval(() => { if (!$("#club-line").hidden || !$("#club-seat").hidden) refreshClub(); }, 15000);
  subscribe(["board"], renderBoardFit);
  subscribe(["rules"], () => { renderVariantChoices(); renderNameFields(); });
  // No game (or this phone left it): the form, its names as last played.
  subscribe(["game"], () => { if (!state.game) renderNameFields(); });
  $("#variant").addEventListener("change", renderNameFields);
  $("#new-game").target.addEventListener("change", renderTargetChoices);

  $("#new-game").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    if (!state.token) { publish("pair"); return; }
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
      state.leftGameId = null;
      setGame(game);
      // Bug 10: the game starts at the top, the first panel under the tabs, not under them.
      window.scrollTo(0, 0);
    } catch (err) {
      const said = ((err.data && err.data.problems) || []).map(sayProblem).filter(Boolean);
      toast(said.length ? said.join(" ") : sayOf(err), null, 6);
    }
  });
}

export { renderNameFields as render };
