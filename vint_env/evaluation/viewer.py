"""The HTML match viewer: one self-contained file (inline CSS, JS and data; no network).

For each match: the summary, a chart of A's cumulative margin over the boards
(inline SVG), a sortable table of the boards (each table's contract and A's
points, the double-dummy par where it was computed) and, for the board picked,
a replay of every table side by side, card by card: the hands, the auction,
each trick, the tricks taken and the running score, and at the end of each deal
the env's score breakdown.  A two-player Vint table is laid out for its two
players: each seat labelled as a player's own hand, his dummy (open or closed)
or a pile, the widow of way 5 on the table until it is taken, the exchanges and
give-aways among the calls, two-card tricks where only the players play
(ways 2, 3), and the tricks, calls and points per player.

The page reads ``#match=I&sort=C&board=N&step=K`` from its address on load
(it clicks column C's header, then shows step K), so a replay position can be
linked to.  Each value must be a plain decimal integer; a step past the
board's last is clamped to it, anything else is ignored (a crafted link
cannot make the page loop).

Build it from a match (:func:`write_html` with :func:`~vint_env.evaluation.report.match_json`
records) or from saved results (``vint-eval view results.json``).
"""

from __future__ import annotations

import html
import json
from pathlib import Path

from .. import games
from .report import write_text

_CSS = r"""
body { font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; color: #1d232a; background: #f5f6f8; }
header { background: #1f3a5f; color: #fff; padding: 10px 20px; }
header h1 { font-size: 19px; margin: 0; }
main { padding: 12px 20px; }
nav#matches button { margin-right: 6px; padding: 5px 12px; border: 1px solid #b8c0cc; border-radius: 5px 5px 0 0;
  background: #e4e8ee; color: #1d232a; cursor: pointer; font: inherit; }
nav#matches button:hover { background: #d5dce6; }
nav#matches button.active { background: #1f3a5f; border-color: #1f3a5f; color: #fff; font-weight: 600; cursor: default; }
section.panel { background: #fff; border: 1px solid #d5d9e0; border-radius: 6px; padding: 10px 14px; margin: 10px 0; }
h2 { font-size: 16px; margin: 4px 0 8px; }
table.grid { border-collapse: collapse; font-size: 13px; }
table.grid th, table.grid td { border: 1px solid #d5d9e0; padding: 3px 7px; text-align: right; white-space: nowrap; }
table.grid th { background: #eef1f5; cursor: pointer; user-select: none; }
table.grid th.sorted-asc::after { content: " \25B2"; } table.grid th.sorted-desc::after { content: " \25BC"; }
table.grid td.text { text-align: left; }
#boards-wrap { max-height: 340px; overflow: auto; }
#boards tbody tr { cursor: pointer; } #boards tbody tr:hover { background: #eef4ff; }
#boards tbody tr.selected { background: #ffe9a8; }
.pos { color: #0a6b2d; } .neg { color: #b3261e; }
dl.summary { display: grid; grid-template-columns: max-content auto; gap: 2px 14px; margin: 0; }
dl.summary dt { color: #56606b; } dl.summary dd { margin: 0; }
#controls button { font-size: 15px; min-width: 38px; }
#controls { display: flex; gap: 6px; align-items: center; flex-wrap: wrap; }
#tables { display: flex; flex-wrap: wrap; gap: 12px; }
.table-view { border: 1px solid #d5d9e0; border-radius: 6px; padding: 8px; background: #fbfcfd; flex: 1 1 560px; max-width: 760px; }
.table-view h3 { font-size: 14px; margin: 0 0 6px; }
.felt { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1.1fr) minmax(0, 1fr); grid-template-rows: auto auto auto; gap: 4px;
        background: #1e6b45; border-radius: 8px; padding: 8px; color: #fff; }
.hand { background: rgba(255,255,255,0.95); color: #1d232a; border-radius: 5px; padding: 4px 6px; min-height: 86px; }
.hand.to-move { outline: 3px solid #ffd54a; }
.hand .who { font-size: 12px; font-weight: 600; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; } .hand .who .team-A { color: #1f5fbf; } .hand .who .team-B { color: #b3261e; }
.hand .suit { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 13px; }
.seat-0 { grid-column: 2; grid-row: 1; } .seat-1 { grid-column: 3; grid-row: 2; }
.seat-2 { grid-column: 2; grid-row: 3; } .seat-3 { grid-column: 1; grid-row: 2; }
.trick { grid-column: 2; grid-row: 2; display: grid; grid-template-columns: 1fr 1fr 1fr; grid-template-rows: 1fr 1fr 1fr;
         min-height: 96px; text-align: center; align-items: center; font-size: 12px; }
.trick .slot-0 { grid-column: 2; grid-row: 1; } .trick .slot-1 { grid-column: 3; grid-row: 2; }
.trick .slot-2 { grid-column: 2; grid-row: 3; } .trick .slot-3 { grid-column: 1; grid-row: 2; }
.trick .caption { grid-column: 1 / 4; grid-row: 2; font-size: 11px; opacity: 0.85; pointer-events: none; }
.trick .card { background: #fff; border-radius: 4px; padding: 2px 5px; font-weight: 700; }
.trick .card.winner { outline: 2px solid #ffd54a; }
.trick.last { opacity: 0.6; }
.card.s-H, .card.s-D { color: #c62828; } .card.s-S, .card.s-C { color: #111; }
.hand .card { margin-right: 3px; }
.side { display: grid; grid-template-columns: 1fr 1fr; gap: 8px; margin-top: 6px; font-size: 13px; }
.auction { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12px; }
.auction table { border-collapse: collapse; } .auction td, .auction th { padding: 0 6px; text-align: left; }
.result table { border-collapse: collapse; font-size: 12px; } .result td { padding: 0 6px; border-bottom: 1px solid #eee; }
.muted { color: #6b7580; font-size: 12px; }
.hand.dummy { background: rgba(232,238,248,0.95); } .hand.pile { background: rgba(225,225,225,0.9); }
.widow { grid-column: 1; grid-row: 1; align-self: start; background: rgba(255,255,255,0.85); color: #1d232a;
         border-radius: 5px; padding: 3px 6px; font-size: 12px; } .widow .card { margin-right: 3px; }
svg text { font-size: 11px; fill: #444; }
"""

#: The DOM helper of the viewer's script, ``el(tag, {class, text, onclick, ...attributes}, ...children)``;
#: vint-serve's page loads the same one (``/static/dom.js``).
DOM_JS = r"""function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v; else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v); else e.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}
"""

_JS = r"""
"use strict";
const DATA = JSON.parse(document.getElementById("match-data").textContent);
const SEATS = ["N", "E", "S", "W"];
const SUITS = ["S", "H", "D", "C"];
const SYMBOL = {S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663"};
const RANKS = ["A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2"];
let state = {match: 0, board: null, step: 0, maxStep: 0, sort: {col: 0, dir: 1}};

""" + DOM_JS + r"""// Points as the command-line tools print them (vint_env/points.py): thousands separators; a whole
// number whole; a figure alone to about three significant digits; a CI to two of its half-width.
function decimalsFor(m) { m = Math.abs(m); return (!isFinite(m) || m === 0) ? 2 : Math.max(0, Math.min(2, 1 - Math.floor(Math.log10(m)))); }
function fmt(x, d) {
  if (x === null || x === undefined || Number.isNaN(Number(x))) return "-";
  x = Number(x);
  if (d === undefined) d = Number.isInteger(x) ? 0 : decimalsFor(x / 10);
  if (Math.abs(x) < 0.5 * Math.pow(10, -d)) x = 0;
  return x.toLocaleString("en-US", {minimumFractionDigits: d, maximumFractionDigits: d});
}
function signed(x, d) { const s = fmt(x, d); return Number(x) > 0 && s !== "0" ? "+" + s : s; }
function ciText(m) {
  const half = (m.high - m.low) / 2, d = half > 0 ? decimalsFor(half) : undefined;
  return signed(m.mean, d) + "  95% CI [" + signed(m.low, d) + ", " + signed(m.high, d) + "]";
}
function cardEl(text, extra, rankOnly) {
  const suit = text[0];
  return el("span", {"class": "card s-" + suit + (extra ? " " + extra : ""), "data-card": text},
            (rankOnly ? "" : SYMBOL[suit]) + text.slice(1));
}
function match() { return DATA.matches[state.match]; }
function agentName(team) { const s = match().summary; return team === "A" ? s.agent_a : s.agent_b; }
function shortName(team) {      // "ppo:runs/x/checkpoints/latest.pt" -> "ppo:latest.pt" (the full name in a tooltip)
  const name = agentName(team), i = name.lastIndexOf("/");
  return i < 0 ? name : name.slice(0, name.indexOf(":") + 1) + "\u2026/" + name.slice(i + 1);
}
function teamPoints(t) { const i = t.seats.indexOf("A"); return t.points[i]; }
function twoPlayer(t) { return t.seats.length === 2; }      // two-player Vint: seats "AB" are the players
const PLAYERS = ["player_0", "player_1"];

// ------------------------------------------------------------ summary and chart
function renderSummary() {
  const s = match().summary, m = s.margin_per_board, box = document.getElementById("summary");
  box.replaceChildren();
  const partnership = s.tables_per_board === 2;
  const rows = [
    ["game", s.game + ", " + s.episode + " mode"],
    ["A", s.agent_a], ["B", s.agent_b],
    ["boards", s.boards + (s.seed === null ? "" : " (seed " + s.seed + ")") + ", " + s.tables_per_board + " tables each" +
               (partnership ? " (duplicate, seats swapped)" : " (A alone against three B, rotated)")],
    [partnership ? "A minus B per board" : "A's points per board",
     ciText(m)],
    ["boards won / lost / tied", s.boards_won + " / " + s.boards_lost + " / " + s.boards_tied],
  ];
  if (s.command) rows.push(["command", s.command]);
  const dl = el("dl", {"class": "summary"});
  for (const [k, v] of rows) dl.append(el("dt", {text: k}), el("dd", {text: v}));
  box.append(el("h2", {text: s.agent_a + " (A) vs " + s.agent_b + " (B)"}), dl);
  if (match().markdown) {
    const det = el("details", {}, el("summary", {text: "full report (Markdown)"}), el("pre", {text: match().markdown}));
    box.append(det);
  }
}

function renderChart() {
  const boards = match().boards, W = 900, H = 230, L = 84, R = 12, T = 18, B = 30;
  let sum = 0; const ys = [0];
  for (const b of boards) { sum += b.score; ys.push(sum); }
  const lo = Math.min(0, ...ys), hi = Math.max(0, ...ys), span = (hi - lo) || 1;
  const x = i => L + (W - L - R) * i / Math.max(1, ys.length - 1);
  const y = v => T + (H - T - B) * (hi - v) / span;
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`); svg.setAttribute("width", "100%"); svg.setAttribute("id", "margin-chart");
  const add = (tag, attrs, text) => { const e = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v); if (text !== undefined) e.textContent = text; svg.append(e); return e; };
  add("line", {x1: L, x2: W - R, y1: y(0), y2: y(0), stroke: "#888", "stroke-dasharray": "4 3"});
  add("line", {x1: L, x2: L, y1: T, y2: H - B, stroke: "#888"});
  // the axis labels: top, bottom and zero, each where it cannot overlap another (11 px text)
  add("text", {x: L - 6, y: y(hi) + 4, "text-anchor": "end", "class": "axis-label"}, signed(hi));
  add("text", {x: L - 6, y: y(lo) + 4, "text-anchor": "end", "class": "axis-label"}, signed(lo));
  if (hi !== 0 && lo !== 0 && y(hi) + 14 < y(0) && y(0) + 14 < y(lo))
    add("text", {x: L - 6, y: y(0) + 4, "text-anchor": "end", "class": "axis-label"}, "0");
  add("text", {x: L, y: H - 10}, "board " + (boards.length ? boards[0].board : ""));
  add("text", {x: W - R, y: H - 10, "text-anchor": "end"}, "board " + (boards.length ? boards[boards.length - 1].board : ""));
  add("text", {x: (L + W) / 2, y: H - 10, "text-anchor": "middle"}, match().summary.tables_per_board === 2 ? "cumulative points of A minus B over the boards"
      : "cumulative points of A (alone against three B) over the boards");
  const pts = ys.map((v, i) => x(i).toFixed(1) + "," + y(v).toFixed(1)).join(" ");
  add("polyline", {points: pts, fill: "none", stroke: sum >= 0 ? "#1f5fbf" : "#b3261e", "stroke-width": 1.6});
  const box = document.getElementById("chart");
  box.replaceChildren(el("h2", {text: "Cumulative margin"}), svg);
}

// ------------------------------------------------------------ boards table
// What each table's deal came to, as the game's outcome type shows it (DealOutcome.view, built by
// viewer_html beside the boards): contract, declarer, the status without a contract, the tricks.
for (const m of DATA.matches) m.boards.forEach((b, k) => { b.outcomes = m.outcomes[k]; });
function outcome(b, i) { return b.outcomes[i]; }
function contractText(t, o) {
  if (o.contract !== null) {
    let s = o.contract;
    if (o.declarer !== null)
      s += " by " + t.seats[o.declarer] + " (" + (twoPlayer(t) ? PLAYERS[o.declarer] : SEATS[o.declarer]) + ")";
    return s;
  }
  if (o.status !== null) return o.status;
  if (t.rubber_over !== undefined) return (t.deals_played || "?") + " deals";
  return "-";
}
function tricksText(o) { return o.tricks ? o.tricks.join("-") : ""; }
function boardColumns() {
  const boards = match().boards, nt = boards.length ? boards[0].tables.length : 0;
  const cols = [{name: "board", value: b => b.board}, {name: "A's score", value: b => b.score, cls: true}];
  for (let i = 0; i < nt; i++) {
    cols.push({name: "table " + (i + 1) + " contract", value: b => contractText(b.tables[i], outcome(b, i)), text: true});
    cols.push({name: "tricks " + (i + 1), value: b => tricksText(outcome(b, i)), text: true});
    cols.push({name: "A pts " + (i + 1), value: b => teamPoints(b.tables[i]), cls: true});
  }
  if (boards.some(b => b.tables[0].par_value !== undefined)) {
    cols.push({name: "DD par (N/S)", value: b => (b.tables[0].par_contract || "pass") + " " + signed(b.tables[0].par_value), text: true,
               key: b => b.tables[0].par_value});
  }
  return cols;
}
function renderBoards() {
  const cols = boardColumns(), {col, dir} = state.sort;
  const rows = match().boards.slice();
  const key = cols[col].key || cols[col].value;
  rows.sort((a, b) => { const x = key(a), y = key(b);
    return (typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y))) * dir; });
  const head = el("tr", {}, ...cols.map((c, i) => el("th", {"class": i === col ? (dir > 0 ? "sorted-asc" : "sorted-desc") : "",
    "data-col": i, text: c.name, onclick: () => { state.sort = {col: i, dir: i === col ? -dir : (i === 0 ? 1 : -1)}; renderBoards(); }})));
  const body = el("tbody");
  for (const b of rows) {
    const tr = el("tr", {"data-board": b.board, onclick: () => showBoard(b.board)});
    if (b.board === state.board) tr.classList.add("selected");
    for (const c of cols) {
      const v = c.value(b);
      const td = el("td", {text: typeof v === "number" ? (c.cls ? signed(v) : fmt(v)) : v});
      if (c.text) td.className = "text"; else if (c.cls) td.className = v > 0 ? "pos" : v < 0 ? "neg" : "";
      tr.append(td);
    }
    body.append(tr);
  }
  const table = el("table", {"class": "grid", id: "boards"}, el("thead", {}, head), body);
  document.getElementById("boards-wrap").replaceChildren(table);
}

// ------------------------------------------------------------ replay
function timeline(table) {
  const steps = [];
  (table.replay || []).forEach((d, i) => { for (let n = 0; n <= d.actions.length; n++) steps.push([i, n]); });
  return steps;
}
function dealState(d, n) {
  // A card played leaves the hand of the seat it was played for (seats_for: two-player Vint's dummies);
  // cards that move otherwise (exchanges, the widow, give-aways) come from the recorded holdings.
  let hands = d.hands.map(h => h.slice()), widow = d.table ? d.table.widow.slice() : [];
  const seatFor = k => d.seats_for ? d.seats_for[k] : d.actions[k][0];
  const trickSize = (d.table && d.table.trick_size) || 4, held = d.holdings || [];
  const calls = [], done = [];
  let trick = [], toMove = null;
  for (let k = 0; k < n; k++) {
    const [seat, text, isCard] = d.actions[k], at = seatFor(k);
    if (isCard) {
      hands[at].splice(hands[at].indexOf(text), 1);
      trick.push([at, text]);
      if (trick.length === trickSize) { done.push({cards: trick, winner: d.trick_winners[done.length]}); trick = []; }
    } else calls.push([seat, text]);
    const h = held.find(x => x.at === k + 1);
    if (h) { hands = h.hands.map(x => x.slice()); widow = h.widow.slice(); }
  }
  if (n < d.actions.length) toMove = seatFor(n);
  const won = [0, 0, 0, 0];
  for (const t of done) if (t.winner !== undefined) won[t.winner] += 1;
  return {hands, widow, calls, done, trick, won, toMove, over: n === d.actions.length && d.points !== null};
}
function seatRole(d, seat) {      // two-player Vint: whose hand a seat is, from the deal's table facts
  const t = d.table, ctrl = t.controllers[seat];
  if (ctrl < 0) return {ctrl, text: t.piles ? "pile" : seat === t.open_dummy ? "open dummy" : "closed dummy", cls: t.piles ? "pile" : "dummy"};
  if (t.player_seats[ctrl] === seat) return {ctrl, text: PLAYERS[ctrl], cls: ""};
  return {ctrl, text: PLAYERS[ctrl] + "'s " + (seat === t.open_dummy ? "open " : "") + "dummy", cls: "dummy"};
}
function handEl(table, seat, cards, dealer, toMove, d) {
  let team = table.seats[seat], role = null;
  if (d && d.table) {
    role = seatRole(d, seat);
    team = role.ctrl >= 0 ? table.seats[role.ctrl] : null;
    dealer = d.table.player_seats[dealer];
  }
  const who = el("div", {"class": "who", title: team ? team + ": " + agentName(team) : role.text}, SEATS[seat] + " ",
                 role ? role.text + " " : "",
                 team ? el("span", {"class": "team-" + team, text: team + " " + shortName(team)}) : null,
                 seat === dealer ? " (dealer)" : "");
  const box = el("div", {"class": "hand seat-" + seat + (role && role.cls ? " " + role.cls : "") + (seat === toMove ? " to-move" : ""),
                         "data-seat": seat}, who);
  for (const s of SUITS) {
    const line = el("div", {"class": "suit"}, el("span", {"class": "card-suit s-" + s, text: SYMBOL[s] + " "}));
    const inSuit = cards.filter(c => c[0] === s).sort((a, b) => RANKS.indexOf(a.slice(1)) - RANKS.indexOf(b.slice(1)));
    for (const c of inSuit) line.append(cardEl(c, "", true));
    if (!inSuit.length) line.append("\u2014");
    box.append(line);
  }
  return box;
}
function objTable(obj) {
  const t = el("table");
  for (const [k, v] of Object.entries(obj || {})) {
    let cell;
    if (v !== null && typeof v === "object" && !Array.isArray(v)) cell = objTable(v);
    else if (Array.isArray(v)) cell = document.createTextNode(v.map(x => Array.isArray(x) ? x.join(":") : x).join(", "));
    else cell = document.createTextNode(v === null ? "-" : typeof v === "number" ? fmt(v) : String(v));
    t.append(el("tr", {}, el("td", {text: k}), el("td", {}, cell)));
  }
  return t;
}
function tableView(table, index, step) {
  const steps = timeline(table);
  const view = el("section", {"class": "table-view", "data-table": index});
  const two = twoPlayer(table), names = two ? PLAYERS : SEATS;
  const aSeats = table.seats.split("").map((t, s) => t === "A" ? names[s] : null).filter(x => x).join("/");
  view.append(el("h3", {text: "Table " + (index + 1) + ": A (" + shortName("A") + ") " + (two ? "is " : "at ") + aSeats + "; " +
                        "A's points " + signed(teamPoints(table), 0)}));
  if (!steps.length) { view.append(el("p", {"class": "muted", text: "no replay recorded for this table"})); return view; }
  const [di, n] = steps[Math.min(step, steps.length - 1)];
  const d = table.replay[di], st = dealState(d, n);
  const felt = el("div", {"class": "felt"});
  for (let s = 0; s < 4; s++) felt.append(handEl(table, s, st.hands[s], d.dealer, st.over ? null : st.toMove, d));
  if (st.widow.length) felt.append(el("div", {"class": "widow"}, "widow ", ...st.widow.map(c => cardEl(c))));
  let shown = st.trick, last = false, winner = null;
  if (!shown.length && st.done.length) { const t = st.done[st.done.length - 1]; shown = t.cards; last = true; winner = t.winner; }
  const trick = el("div", {"class": "trick" + (last ? " last" : "")});
  for (const [seat, c] of shown) trick.append(el("div", {"class": "slot-" + seat}, cardEl(c, seat === winner ? "winner" : "")));
  if (!shown.length) trick.append(el("div", {"class": "caption", text: st.calls.length || d.actions.length ? "auction" : ""}));
  else if (last) trick.append(el("div", {"class": "caption", text: "trick " + st.done.length + " won by " + SEATS[winner]}));
  felt.append(trick);
  view.append(felt);

  const auction = el("div", {"class": "auction"}, el("b", {text: "Calls"}));
  const at = el("table", {}, el("tr", {}, ...names.map(s => el("th", {text: s}))));
  let row = null;
  st.calls.forEach(([seat, text], i) => {
    if (!row || seat === 0 || i === 0 || row.children[seat].childNodes.length) {
      row = el("tr"); for (let k = 0; k < names.length; k++) row.append(el("td")); at.append(row);
    }
    row.children[seat].append(el("span", {"class": "call", text: text}));
  });
  auction.append(st.calls.length ? at : el("div", {"class": "muted", text: "none"}));
  if (d.turned) auction.append(el("div", {}, "turned card: ", cardEl(d.turned)));

  const info = el("div", {"class": "status"});
  info.append(el("div", {"class": "step", text: "deal " + (di + 1) + " of " + table.replay.length + ", action " + n + " of " + d.actions.length}));
  if (two) {
    const per = [0, 0];
    st.won.forEach((w, s) => { const c = d.table ? d.table.controllers[s] : s; if (c >= 0) per[c] += w; });
    info.append(el("div", {"class": "tricks-taken", text: "tricks: " + PLAYERS.map((p, i) => p + " " + per[i]).join(", ")}));
  } else {
    info.append(el("div", {"class": "tricks-taken", text: "tricks: " + SEATS.map((s, i) => s + " " + st.won[i]).join(", ") +
                   "  (N/S " + (st.won[0] + st.won[2]) + ", E/W " + (st.won[1] + st.won[3]) + ")"}));
  }
  let before = 0;
  for (let k = 0; k < di; k++) if (table.replay[k].points) before += table.replay[k].points[table.seats.indexOf("A")];
  const now = before + (st.over ? d.points[table.seats.indexOf("A")] : 0);
  info.append(el("div", {"class": "score", text: "A's running score: " + signed(now, 0)}));
  if (st.over) {
    const res = el("div", {"class": "result"}, el("b", {text: "Deal over: points per " + (two ? "player " : "seat ") +
                   d.points.map((p, s) => names[s] + " " + signed(p, 0)).join(", ")}));
    res.append(objTable(d.info.deal || {}));
    if (d.info.rubber) res.append(el("b", {text: "Rubber"}), objTable(d.info.rubber));
    info.append(res);
  }
  view.append(el("div", {"class": "side"}, auction, info));
  return view;
}
function findBoard(number) { return match().boards.find(b => b.board === number); }
function renderReplay() {
  const box = document.getElementById("replay"), b = findBoard(state.board);
  if (!b) { box.hidden = true; return; }
  box.hidden = false;
  state.maxStep = Math.max(...b.tables.map(t => timeline(t).length)) - 1;
  state.step = Math.max(0, Math.min(state.step, state.maxStep));
  document.getElementById("replay-title").textContent = "Board " + b.board + ": A's score " + signed(b.score, 0);
  document.getElementById("step-label").textContent = "step " + state.step + " / " + state.maxStep;
  document.getElementById("tables").replaceChildren(...b.tables.map((t, i) => tableView(t, i, state.step)));
}
function showBoard(number) {
  state.board = number; state.step = 0;
  renderReplay();
  for (const tr of document.querySelectorAll("#boards tbody tr")) tr.classList.toggle("selected", Number(tr.dataset.board) === number);
}
function go(step) { state.step = step; renderReplay(); }
function nextTrick() {
  const b = findBoard(state.board); if (!b) return;
  const t = b.tables[0], steps = timeline(t);
  let k = state.step + 1;
  while (k < state.maxStep) {
    const [di, n] = steps[Math.min(k, steps.length - 1)];
    const d = t.replay[di];
    if (n > 0 && d.actions[n - 1][2] && dealState(d, n).trick.length === 0) break;
    k += 1;
  }
  go(Math.min(k, state.maxStep));
}

function showMatch(i) {
  state.match = i; state.board = null; state.sort = {col: 0, dir: 1};
  for (const [k, btn] of document.querySelectorAll("#matches button").entries()) {
    btn.classList.toggle("active", k === i); btn.setAttribute("aria-pressed", String(k === i));
  }
  renderSummary(); renderChart(); renderBoards(); renderReplay();
}
// A fragment value is used only if it is a plain decimal integer (at most 9 digits) in range: a crafted
// link (step=1e309, step=50000000, sort=-1, board=x) is ignored or clamped, never looped on.
function hashInt(p, key, lo, hi) {
  const text = p.get(key);
  if (text === null || !/^[0-9]{1,9}$/.test(text)) return null;
  return Math.max(lo, Math.min(hi, Number(text)));
}
function applyHash() {
  const p = new URLSearchParams(location.hash.slice(1));
  const m = hashInt(p, "match", 0, DATA.matches.length - 1);
  if (m !== null) showMatch(m);
  const col = p.has("sort") && /^[0-9]{1,3}$/.test(p.get("sort")) ? p.get("sort") : null;
  const th = col === null ? null : document.querySelector('#boards th[data-col="' + col + '"]');
  if (th) th.click();
  const board = hashInt(p, "board", 0, 1e9);
  if (board !== null && findBoard(board)) {
    showBoard(board);
    const step = hashInt(p, "step", 0, state.maxStep);
    if (step !== null) go(step);
  }
}
function init() {
  document.title = DATA.title;
  document.getElementById("title").textContent = DATA.title;
  const nav = document.getElementById("matches");
  if (DATA.matches.length > 1)
    DATA.matches.forEach((m, i) => nav.append(el("button", {text: m.summary.agent_a + " vs " + m.summary.agent_b, onclick: () => showMatch(i)})));
  document.getElementById("first").onclick = () => go(0);
  document.getElementById("prev").onclick = () => go(state.step - 1);
  document.getElementById("next").onclick = () => go(state.step + 1);
  document.getElementById("last").onclick = () => go(state.maxStep);
  document.getElementById("next-trick").onclick = nextTrick;
  document.addEventListener("keydown", e => {
    if (state.board === null) return;
    if (e.key === "ArrowRight") go(state.step + 1); else if (e.key === "ArrowLeft") go(state.step - 1);
  });
  showMatch(0);
  applyHash();
  document.body.dataset.ready = "1";
}
init();
"""

_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>{css}</style>
</head>
<body>
<header><h1 id="title">{title}</h1></header>
<main>
<nav id="matches"></nav>
<section class="panel" id="summary"></section>
<section class="panel" id="chart"></section>
<section class="panel"><h2>Boards</h2>
<p class="muted">Click a column to sort (twice to reverse; sort by A's score to find the biggest swings),
click a board to replay it. Points are A's, summed over the tables for the board's score.</p>
<div id="boards-wrap"></div></section>
<section class="panel" id="replay" hidden>
<h2 id="replay-title"></h2>
<div id="controls">
<button id="first" title="start">|&#x25C0;</button><button id="prev" title="back (left arrow)">&#x25C0;</button>
<button id="next" title="forward (right arrow)">&#x25B6;</button><button id="next-trick" title="to the end of the next trick">trick &#x25B6;&#x25B6;</button>
<button id="last" title="end">&#x25B6;|</button><span id="step-label"></span>
</div>
<p class="muted">All tables of the board step together: step k is the k-th action at each table.</p>
<div id="tables"></div>
</section>
</main>
<script type="application/json" id="match-data">{data}</script>
<script>{js}</script>
</body>
</html>
"""


def _script_json(data) -> str:
    """JSON safe inside a <script> element (no ``</script>`` or ``<!--`` can end it early)."""
    from .report import strict_json
    text = strict_json(data, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def outcome_views(match: dict) -> list[list[dict]]:
    """Per board and table of a match record, what its deal came to as the game's outcome type shows it
    (:meth:`~vint_env.games.outcome.DealOutcome.view`, read back from the table's details)."""
    outcome = games.get(match["summary"]["game"]).outcome
    return [[outcome.from_details(t).view() for t in b["tables"]] for b in match["boards"]]


def viewer_html(matches: list[dict], title: str) -> str:
    """The page for ``matches``: records of :func:`~vint_env.evaluation.report.match_json` (with an
    optional ``"markdown"`` report each)."""
    if not matches:
        raise ValueError("the viewer needs at least one match")
    for m in matches:
        if "summary" not in m or "boards" not in m:
            raise ValueError("a match record needs 'summary' and 'boards' (the JSON of `vint-eval match --out`)")
    shown = [{**m, "outcomes": outcome_views(m)} for m in matches]
    return _PAGE.format(title=html.escape(title), css=_CSS, js=_JS,
                        data=_script_json({"title": title, "matches": shown}))


def write_html(path, matches: list[dict], title: str | None = None) -> Path:
    """Write the viewer for ``matches`` to ``path`` (atomically)."""
    if title is None:
        s = matches[0]["summary"]
        title = f"{s['game']}: {s['agent_a']} vs {s['agent_b']}" if len(matches) == 1 else f"{s['game']}: matches"
    return write_text(path, viewer_html(matches, title))


class ResultsFileError(ValueError):
    """A results file that is not a match results file of ``vint-eval match --out`` (or is damaged)."""


def load_results(path) -> list[dict]:
    """Match records from a results file of ``vint-eval match --out`` (one match) or a viewer data
    file (``{"matches": [...]}``), checked for the structure the viewer reads."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"results file {path} does not exist" if not path.exists()
                                else f"results file {path} is not a file")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ResultsFileError(f"{path} is not JSON text: {exc}") from None
    except RecursionError:
        raise ResultsFileError(f"{path} is nested too deeply to be a results file") from None
    matches = data.get("matches", [data]) if isinstance(data, dict) else None
    if not isinstance(matches, list) or not matches or not all(
            isinstance(m, dict) and isinstance(m.get("summary"), dict) and isinstance(m.get("boards"), list)
            for m in matches):
        raise ResultsFileError(f"{path} is not a match results file (write one with `vint-eval match ... --out FILE`)")
    for m in matches:
        for i, b in enumerate(m["boards"]):
            if not (isinstance(b, dict) and isinstance(b.get("tables"), list)
                    and all(isinstance(t, dict) for t in b["tables"])):
                raise ResultsFileError(f"{path}: board entry {i} is not a board with a list of tables")
    if not any("replay" in t for m in matches for b in m["boards"] for t in b["tables"]):
        raise ResultsFileError(f"{path} holds no replays (it was written by an older vint-eval); play the match again")
    return matches


def render_results(path, matches: list[dict], summary_markdown) -> str:
    """The viewer page of loaded results; a field of the wrong kind anywhere is a :class:`ResultsFileError`
    naming the file (never a traceback from deep in the page builder)."""
    try:
        for m in matches:
            m.setdefault("markdown", summary_markdown(m["summary"], m["summary"].get("command")))
        s = matches[0]["summary"]
        title = f"{s['game']}: {s['agent_a']} vs {s['agent_b']}" if len(matches) == 1 else f"{s['game']}: matches"
        return viewer_html(matches, title)
    except (KeyError, TypeError, AttributeError, IndexError, ValueError, RecursionError) as exc:
        raise ResultsFileError(f"{path} is not a well-formed match results file "
                               f"({type(exc).__name__}: {exc})") from None
