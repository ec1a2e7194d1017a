// The card picker: one button per card, each suit in its own rows.
import { RANKS, SUITS, isRed, spoken } from "./cards.js";
import { el } from "./dom.js";

export function buildPicker(root, onPick, isDisabled = () => false, isPressed = () => false, pressedClass = () => "") {
  root.replaceChildren();
  for (const [s, glyph] of SUITS) {
    for (const r of RANKS) {
      const card = r + s;
      root.append(el("button", {
        type: "button", class: `${isRed(card) ? "red" : ""} ${r === "A" ? "ace" : ""} ${pressedClass(card)}`.replace(/\s+/g, " ").trim(), "data-card": card,
        "aria-pressed": String(isPressed(card)), disabled: isDisabled(card),
        onclick: () => onPick(card),
      // The name a screen reader says is the card in words ("four of clubs"); the glyphs are for eyes.
      }, el("span", { "aria-hidden": "true", text: r }), el("span", { "aria-hidden": "true", text: glyph }),
      el("span", { class: "sr", text: spoken(card) })));
    }
  }
}
