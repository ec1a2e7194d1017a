// The Settings screen: brightness, colours, devices, the pairing state, a pasted token.
import { $, el } from "../js/dom.js";
import { api, sayOf } from "../js/net.js";
import { forgetToken, publish, state, subscribe } from "../js/store.js";
import { toast } from "../js/toast.js";

async function loadSettings() {
  try {
    const st = await api("GET", "/api/settings");
    const form = $("#settings-form");
    form.brightness.value = st.brightness;
    $("#brightness-value").textContent = String(st.brightness);
    form.palette.value = st.palette;
    document.body.classList.toggle("colorblind", st.palette === "colorblind");
  } catch { /* the form keeps its defaults */ }
  try { const h = await api("GET", "/api/health"); state.devices = h.devices || {}; state.version = h.version; } catch { /* shown as unknown */ }
  renderDevices();
  renderPairState();
}
function renderDevices() {
  const list = $("#devices");
  if (!list) return;
  const words = { idle: "ready", busy: "working", waiting: "waiting", fault: "fault", absent: "not connected", lost: "lost, retrying", stopped: "stopped" };
  list.replaceChildren(...Object.entries(state.devices || {}).map(([name, d]) => el("li", { "data-device": name, "data-state": d.state || "unknown" },
    el("strong", { text: name }), ` ${words[d.state] || d.state || "unknown"}${d.kind ? ` (${d.kind})` : ""}${d.fault ? ` — ${d.fault}` : ""}`)));
}
function renderPairState() {
  $("#pair-state").textContent = state.token ? `This phone is paired${state.tokenName ? ` as “${state.tokenName}”` : ""} and can keep score.` : "This phone is watching. Pair it to keep score.";
  document.body.classList.toggle("readonly", !state.token);
  $("#pair-open").hidden = !!state.token;
  $("#watching").hidden = !!state.token;
  $("#settings-pair").hidden = !!state.token;
  $("#unpair").hidden = !state.token;
}
// The screen's controls, wired once the page has loaded.
export function mount() {
  subscribe([], renderPairState);
  subscribe(["tab"], () => { if (state.tab === "settings") loadSettings(); });
  subscribe(["devices"], renderDevices);
  $("#settings-form").brightness.addEventListener("input", (ev) => { $("#brightness-value").textContent = ev.target.value; });
  $("#settings-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    if (!state.token) { publish("pair"); return; }
    const form = ev.target;
    try {
      const st = await api("PUT", "/api/settings", { brightness: Number(form.brightness.value), palette: form.palette.value });
      document.body.classList.toggle("colorblind", st.palette === "colorblind");
      toast(`Saved: brightness ${st.brightness}, ${st.palette === "colorblind" ? "colour-blind safe" : "classic"} colours.`);
    } catch (err) { toast(sayOf(err), null, 6); }
  });
  $("#unpair").addEventListener("click", () => forgetToken("This phone is watching only now."));
  // A token made on the Pi (`crib token create laptop`) pairs this phone too. It is
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
    state.token = token;
    state.tokenName = "token";
    localStorage.setItem("crib.token", token);
    localStorage.setItem("crib.phone", "token");
    toast("Paired with the token. This phone can keep score.");
    publish("all");
  });
}

export { loadSettings as render };
