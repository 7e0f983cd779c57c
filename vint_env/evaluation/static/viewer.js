"use strict";
// The match viewer's page (vint_env/evaluation/viewer.py writes it, this script inline); the cards, hands and
// tricks are drawn by table.js (SEATS, SYMBOL, el, cardEl, suitLines, trickSlots), inline before it.
const DATA = JSON.parse(document.getElementById("match-data").textContent);
let state = {match: 0, board: null, step: 0, maxStep: 0, sort: {col: 0, dir: 1}};

// Points as the command-line tools print them (vint_env/points.py): thousands separators; a whole
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
  box.append(...suitLines(cards));
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
  trick.append(...trickSlots(shown, winner));
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
