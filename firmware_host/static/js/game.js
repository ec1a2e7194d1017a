// Words about a game view: the result line, games won, the side of a player.

// "Bob wins 121 to 86 — a skunk": the winner's score first, then the others in side order.
export function resultText(game) {
  const r = game.result;
  const winner = game.sides[r.winner] ? game.sides[r.winner].name : "";
  const scores = r.scores || game.sides.map((s) => s.front);
  const others = scores.filter((_, i) => i !== r.winner);
  // With three sides the loser (the engine's lowest side) is named: only that side is under the line.
  const loser = game.sides.length > 2 && game.sides[r.loser] ? game.sides[r.loser].name : "";
  const kind = loser ? { skunk: ` — ${loser} is skunked`, double_skunk: ` — ${loser} is double-skunked`, lurch: ` — ${loser} is lurched` }[r.kind] || "" :
    { skunk: " — a skunk", double_skunk: " — a double skunk", lurch: " — lurched" }[r.kind] || "";
  const win = ((game.sides[r.winner] || {}).players || []).length > 1 ? "win" : "wins"; // "Ann & Cy win"
  return `${winner} ${win} ${scores[r.winner]} to ${others.join(" and ")}${kind}` + (r.game_points > 1 ? ` (${r.game_points} games)` : "");
}

// " · games won 1, counting 4": a skunk counts as more than one game (the engine's match points),
// as the result line said ("(4 games)").
export function gamesWon(game, i) {
  if (!game.games_won || game.game_number <= 1) return "";
  const won = game.games_won[i] || 0;
  const counting = game.match_points ? game.match_points[i] || 0 : won;
  return ` · games won ${won}` + (counting !== won ? `, counting ${counting}` : "");
}

export function sideOfPlayer(game, player) {
  const i = game.sides.findIndex((s) => (s.players || []).includes(player));
  return i < 0 ? player : i;
}
