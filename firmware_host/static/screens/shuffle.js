// The Shuffle screen: the plan and its quality, the prompts pass by pass, jams.
import { $, el } from "../js/dom.js";
import { api, sayOf } from "../js/net.js";
import { publish, state, subscribe } from "../js/store.js";
import { toast } from "../js/toast.js";

async function loadPlans() {
  const deck = Number($("#shuffle-form").deck.value);
  if (!state.plans[deck]) {
    try { state.plans[deck] = await api("GET", `/api/shuffler/plans?deck=${deck}`); } catch { state.plans[deck] = null; }
  }
  renderPlanQuality();
  renderShuffler();
}
// A hands-free machine restacks the piles itself: one button starts its own plan, so the
// plan is not asked. Known from the plans (the build) and from the shuffler's status.
const handsFree = () => Boolean(state.shuffler?.hands_free || Object.values(state.plans).some((x) => x?.hands_free));
// The plan chosen, a line each: what it does, how well it mixes, how long it takes.
const minutes = (s) => (s < 90 ? `${Math.round(s)} s` : `${Math.floor(s / 60)} min ${String(Math.round(s % 60)).padStart(2, "0")} s`);
const line = (label, ...parts) => el("p", { class: "plan-line" }, el("span", { class: "plan-label", text: label }), el("span", {}, ...parts));
function renderPlanQuality() {
  const form = $("#shuffle-form");
  const known = state.plans[Number(form.deck.value)];
  const hf = handsFree();
  form.classList.toggle("hands-free", hf);
  $("#shuffle-plan").hidden = hf;
  if (hf && known) form.plan.value = known.default;
  const p = (known?.plans || []).find((x) => x.plan === form.plan.value);
  const box = $("#plan-quality");
  if (!p) { box.replaceChildren(); return; }
  box.replaceChildren(
    line("Plan", hf ? `${p.passes} passes, restacked by the machine` + (p.load_face_up ? "; load it face up" : "") : `${p.passes} passes of ${p.deck_size} cards`),
    line("Quality", el("span", { class: `tv ${p.random ? "good" : "bad"}`, text: p.random ? "random" : "NOT random" }),
      el("span", { text: ` · distance ${Number(p.tv_distance).toFixed(3)} (0 is perfect)` })),
    line("Time", el("span", { class: "plan-time", text: hf ? `about ${minutes(p.shuffle_s)}, no hands` : `about ${minutes(p.shuffle_s)} in all, ${Math.round(p.pass_s)} s a pass` })),
    el("details", { class: "plan-why" }, el("summary", { text: "About this plan" }), el("p", { text: p.quality })));
}
// The plan a running shuffle follows (its deck and number of passes), for the time left.
function runningPlan(st) {
  return (state.plans[st.deck_size]?.plans || []).find((x) => x.passes === st.passes_total) || null;
}
// What a hands-free machine is doing, in a word or two.
const PHASE = { pass: "passing", restack: "restacking", paused: "paused: lid open" };
// The time left: the machine's own estimate, else the plan's pace over the passes to come.
function timeLeft(st, cards) {
  if (st.hands_free) return st.seconds_left ?? null;
  const plan = runningPlan(st);
  return plan ? (plan.shuffle_s / plan.passes) * Math.max(0, st.passes_total - st.passes_done - cards) : null;
}
// Progress drawn: the passes as segments (done, this one, to come), the cards of this pass
// as a bar, and the time left.
function progress(st) {
  const busy = st.state === "busy";
  const passing = busy && (!st.hands_free || st.phase === "pass");
  const cards = passing && st.deck_size ? Math.min(1, st.cards_this_pass / st.deck_size) : 0;
  const now = (i) => i === st.passes_done && (busy || st.phase === "paused");
  const segs = Array.from({ length: st.passes_total }, (_, i) => el("span", {
    class: i < st.passes_done ? "seg-done" : now(i) ? "seg-now" : "seg-todo",
    style: now(i) ? `--fill:${Math.round(cards * 100)}%` : null,
  }));
  const frac = (st.passes_done + cards) / st.passes_total;
  const pct = Math.round(Math.min(1, frac) * 100);
  const left = st.state === "idle" ? null : timeLeft(st, cards);
  const phase = st.hands_free ? PHASE[st.phase] : null;
  return [
    el("div", { class: "progress passes", role: "progressbar", "aria-label": "Shuffle progress", "aria-valuenow": String(pct), "aria-valuemin": "0", "aria-valuemax": "100",
      "aria-valuetext": `${st.passes_done} of ${st.passes_total} passes done` + (phase ? `, ${phase}` : "") }, ...segs),
    el("p", { class: "progress-line" },
      el("span", { text: `Passes ${st.passes_done} of ${st.passes_total} done` }),
      phase ? el("span", { class: "phase", "data-phase": st.phase, text: ` · ${phase}` }) : null,
      passing && st.deck_size ? el("span", { text: ` · cards ${st.cards_this_pass} of ${st.deck_size}` }) : null,
      left !== null ? el("span", { class: "time-left", text: ` · about ${minutes(left)} left` }) : null),
  ];
}
async function shufflerCall(path, body) {
  // The answer is the status when the request was handled; live updates sent after it win.
  const seen = state.shufflerSeen;
  try {
    const status = await api("POST", path, body);
    if (state.shufflerSeen === seen) { state.shuffler = status; renderShuffler(); }
  } catch (err) { toast(sayOf(err), null, 8); }
}
// The button that answers the prompt: on a hands-free machine the player only ever resumes
// (the lid closed, a card put back); on the Lotus-style one they stack a pile between passes.
function continueWords(st) {
  if (st.hands_free) return "Resume";
  return st.state === "fault" ? "Done, go on" : "Stacked, next pass";
}
// The prompt without the plan's quality at its end: that is on the Quality line already.
function withoutQuality(st) {
  const tail = st.quality ? ` ${st.quality}.` : null;
  return tail && st.prompt.endsWith(tail) ? st.prompt.slice(0, -tail.length) : st.prompt;
}
function renderShuffler() {
  const st = state.shuffler;
  const box = $("#shuffle-status");
  const cont = $("#shuffle-continue");
  const stop = $("#shuffle-abort");
  // the first status of a hands-free machine hides the plan (redrawn only then: an open
  // "About this plan" stays open while the shuffle runs)
  if ($("#shuffle-form").classList.contains("hands-free") !== handsFree()) renderPlanQuality();
  if (!st) { box.replaceChildren(); cont.hidden = true; stop.hidden = true; $("#shuffle-form").classList.remove("running"); return; }
  const running = ["busy", "waiting", "fault"].includes(st.state);
  const parts = [];
  // Once the shuffle goes on again, the jam's words (still in the status) are out of date.
  const busy = st.state === "busy";
  if (st.fault && st.state === "fault") {
    parts.push(el("div", { class: "fault", role: "alert" }, el("strong", { text: "Stopped. " }), st.fault));
  } else if (st.prompt && !busy) {
    parts.push(el("div", { class: "prompt", role: st.state === "waiting" ? "alert" : null, text: withoutQuality(st) }));
  } else if (st.state === "busy") {
    parts.push(el("div", { class: "prompt", text: st.hands_free ? "Shuffling by itself: keep the lid closed." : "Shuffling… keep your hands clear." }));
  }
  if (st.passes_total) parts.push(...progress(st));
  const stateText = { idle: "ready", busy: "shuffling", waiting: "waiting for you", fault: "stopped by a fault", absent: "not connected", lost: "lost", stopped: "stopped" }[st.state] || st.state;
  parts.push(el("div", { class: "hint", "data-state": st.state, text: `Shuffler: ${stateText}` + (st.state === "absent" && st.fault ? ` (${st.fault})` : "") }));
  box.replaceChildren(...parts);
  box.dataset.state = st.state;
  box.dataset.phase = st.phase || "";
  cont.hidden = !(st.state === "waiting" || st.state === "fault");
  cont.textContent = continueWords(st);
  stop.hidden = !running;
  $("#shuffle-start").disabled = running;
  $("#shuffle-form").classList.toggle("running", running);
}


// The screen's controls, wired once the page has loaded.
export function mount() {
  subscribe(["shuffler"], renderShuffler);
  subscribe(["tab"], () => { if (state.tab === "shuffle") loadPlans(); });
  $("#shuffle-form").addEventListener("change", (ev) => { if (ev.target.name === "deck") loadPlans(); else renderPlanQuality(); });
  $("#shuffle-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    if (!state.token) { publish("pair"); return; }
    const form = ev.target;
    // hands-free: the machine's own plan (the configuration's), as a touch starts it
    const body = { deck: Number(form.deck.value) };
    if (!handsFree()) body.plan = form.plan.value;
    shufflerCall("/api/shuffler/shuffle", body);
  });
  $("#shuffle-continue").addEventListener("click", () => shufflerCall("/api/shuffler/continue", {}));
  $("#shuffle-abort").addEventListener("click", () => shufflerCall("/api/shuffler/abort", {}));
}

export { renderShuffler as render };
