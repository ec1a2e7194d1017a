// Cards as the page names them: ranks, suits, words for a screen reader, the cut for deal.


export const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
export const SUITS = [["S", "♠"], ["H", "♥"], ["D", "♦"], ["C", "♣"]];
export const RANK_WORDS = { A: "ace", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight",
  9: "nine", 10: "ten", J: "jack", Q: "queen", K: "king" };
export const SUIT_WORDS = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
// What a screen reader says for a card: "four of clubs", never "4C".
export const spoken = (c) => `${RANK_WORDS[c.slice(0, -1)] || c.slice(0, -1)} of ${SUIT_WORDS[c.slice(-1)] || c.slice(-1)}`;
export const pretty = (c) => {
  const suit = c.slice(-1);
  const glyph = (SUITS.find(([s]) => s === suit) || [suit, suit])[1];
  return c.slice(0, -1) + glyph;
};
export const isRed = (c) => c.endsWith("H") || c.endsWith("D");
export const pips = (c) => Math.min(10, RANKS.indexOf(c.slice(0, -1)) + 1);
export function randomIndex(n) {
  // Uniform without modulo bias.
  const buf = new Uint32Array(1);
  const limit = Math.floor(0x100000000 / n) * n;
  do crypto.getRandomValues(buf); while (buf[0] >= limit);
  return buf[0] % n;
}
// The cut for deal: the phone draws one card per player at random; the engine says who deals
// (and refuses a tie, which is cut again).
export function drawCut(n) {
  const deck = [];
  for (const r of RANKS) for (const [s] of SUITS) deck.push(r + s);
  return Array.from({ length: n }, () => deck.splice(randomIndex(deck.length), 1)[0]);
}
