"use strict";
// Cards, hands and tricks as the match viewer and vint-serve both draw them.  The viewer's page holds this
// script inline (vint_env/evaluation/viewer.py); vint-serve's page loads it as /static/table.js.
const SEATS = ["N", "E", "S", "W"];
const SUITS = ["S", "H", "D", "C"];
const SYMBOL = {S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663"};
const RANKS = ["A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2"];

// el(tag, {class, text, onclick, ...attributes}, ...children): an element (null and undefined children skipped).
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v; else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) { if (v) e.addEventListener(k.slice(2), v); } else e.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}

// A card's text ("SA", "H10") as it is read: suit symbol, then rank.
function cardLabel(text) { return SYMBOL[text[0]] + text.slice(1); }

// One card: <TAG class="card s-SUIT EXTRA" data-card="TEXT">, its rank alone where its suit line says the suit.
function cardEl(text, {tag = "span", extra = "", rankOnly = false, attrs = {}} = {}) {
  return el(tag, {...attrs, "class": "card s-" + text[0] + (extra ? " " + extra : ""), "data-card": text},
            rankOnly ? text.slice(1) : cardLabel(text));
}

// A hand as four suit lines (spades, hearts, diamonds, clubs; each high to low, a dash for a void).
// cardOf(text) draws one card (default: its rank).
function suitLines(cards, cardOf = c => cardEl(c, {rankOnly: true})) {
  return SUITS.map(s => {
    const line = el("div", {"class": "suit"}, el("span", {"class": "suit-symbol s-" + s, text: SYMBOL[s] + " "}));
    const inSuit = cards.filter(c => c[0] === s).sort((a, b) => RANKS.indexOf(a.slice(1)) - RANKS.indexOf(b.slice(1)));
    for (const c of inSuit) line.append(cardOf(c));
    if (!inSuit.length) line.append("\u2014");
    return line;
  });
}

// A trick's cards, each in the slot of where it was played from: [[slot, card], ...] -> <div class="slot-K">.
// The winning slot's card (if given) is marked "winner".
function trickSlots(plays, winner = null) {
  return plays.map(([slot, card]) => el("div", {"class": "slot-" + slot}, cardEl(card, {extra: slot === winner ? "winner" : ""})));
}
