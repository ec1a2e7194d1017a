// The phone page: ES modules, no build step, no request leaves the Pi.
// Live state comes over /api/events; every write carries the game version and a client
// operation id so that a tap is applied once and a conflicting tap is reconciled.
//
// The map (docs/page.md says more):
//   js/store.js      the one store (`state`) with `subscribe` and `publish`
//   js/net.js        HTTP to the daemon, the live link (/api/events) and its heartbeat
//   js/actions.js    a tap sent to the game (version, operation id, retries) and its toast
//   js/speech.js     what the page says aloud
//   js/rules.js      the engine's catalogue of rules, read by every screen
//   js/game.js       words about a game view (the result, sides of players)
//   js/cards.js, js/dom.js, js/picker.js, js/toast.js, js/tabs.js   small shared parts
//   screens/*.js     one module per screen, each with `mount` (wires its controls and
//                    subscribes to the store) and `render`
import { connect, mount as mountNet } from "./js/net.js";
import { loadRules } from "./js/rules.js";
import { mount as mountSpeech } from "./js/speech.js";
import { publish } from "./js/store.js";
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
  mountTabs();
  mountSpeech();
  mountNet();
  newGame.renderNameFields();
  publish("all");
  await loadRules();
  newGame.renderVariantChoices();
  newGame.renderNameFields();
  // The game in progress comes with the live link's snapshot (no game is no error to log).
  connect();
}
start();
