// The phone page: ES modules, no build step, no request leaves the Pi.
// Live state comes over /api/events; every write carries the game version and a client
// operation id so that a tap is applied once and a conflicting tap is reconciled.
//
// The map (docs/page.md says more). Modules talk through the store: the network publishes
// what comes in, and screens subscribe to what they show; no screen imports another (the
// Score screen draws its cards' box with the play module's `render`).
//   js/store.js      the one store (`state`) with `subscribe` and `publish`
//   js/net.js        HTTP to the daemon, the live link (/api/events) and its heartbeat
//   js/announce.js   each step shown on every phone, and said by the one that speaks
//   js/actions.js    a tap sent to the game (version, operation id, retries, kept taps)
//   js/speech.js     what the page says aloud, and which phone says it
//   js/rules.js      the engine's catalogue of rules, read by every screen
//   js/game.js       words about a game view (the result, sides of players), the cut for deal
//   js/countmode.js  the Count tab's two modes, for both of its screens
//   js/cards.js, js/dom.js, js/picker.js, js/toast.js, js/tabs.js   small shared parts
//   screens/*.js     one module per screen, each with `mount` (wires its controls and
//                    subscribes to the store) and `render`
import { mount as mountActions } from "./js/actions.js";
import { mount as mountAnnounce } from "./js/announce.js";
import { connect, mount as mountNet } from "./js/net.js";
import { loadRules } from "./js/rules.js";
import { mount as mountSpeech } from "./js/speech.js";
import { publish, subscribe } from "./js/store.js";
import { mount as mountTabs } from "./js/tabs.js";
import * as advise from "./screens/advise.js";
import * as board from "./screens/board.js";
import * as count from "./screens/count.js";
import * as history from "./screens/history.js";
import * as newGame from "./screens/new-game.js";
import * as pairing from "./screens/pairing.js";
import * as play from "./screens/play.js";
import * as score from "./screens/score.js";
import * as settings from "./screens/settings.js";
import * as shuffle from "./screens/shuffle.js";

async function start() {
  for (const screen of [settings, score, play, count, advise, shuffle, board, history, newGame, pairing]) screen.mount();
  // A tap that needs a paired phone opens the pairing dialog ("pair").
  subscribe(["pair"], (topic) => { if (topic === "pair") pairing.render(); });
  mountTabs();
  mountSpeech();
  mountNet();
  mountAnnounce();
  mountActions();
  publish("all");
  await loadRules();
  // The game in progress comes with the live link's snapshot (no game is no error to log).
  connect();
}
start();
