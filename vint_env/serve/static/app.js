"use strict";
// The vint-serve page: a setup form, then one table played through the JSON API (/api/...).
// The cards, hands and tricks are drawn by /static/table.js, the match viewer's script (SEATS, el, cardEl,
// cardLabel, suitLines, trickSlots).
let catalogue = null, table = null;

const $ = id => document.getElementById(id);
function signed(x) { const s = Number.isInteger(x) ? String(x) : x.toFixed(2); return x > 0 ? "+" + s : s; }

function showError(message) {
  const box = $("error");
  box.textContent = message || "";
  box.hidden = !message;
}

async function api(method, path, body) {
  document.body.dataset.busy = "1";
  try {
    const response = await fetch(path, {method, headers: {"Content-Type": "application/json"},
                                        body: body === undefined ? undefined : JSON.stringify(body)});
    const data = await response.json().catch(() => ({error: "the server sent no JSON (" + response.status + ")"}));
    if (!response.ok) throw new Error(data.error || ("HTTP " + response.status));
    showError("");
    return data;
  } finally {
    document.body.dataset.busy = "0";
  }
}

// ------------------------------------------------------------ setup
function gameInfo() { return catalogue.games.find(g => g.name === $("game").value); }
function fillGameChoices() {
  const g = gameInfo();
  $("seat").replaceChildren(...g.seats.map(s => el("option", {value: s, text: s}, )));
  $("seat").value = g.default_seat;
  $("episode").replaceChildren(...g.episodes.map(e => el("option", {value: e, text: e === "deal" ? "deals" : "a rubber"})));
  $("partner").disabled = !g.partnership;
  $("partner-label").classList.toggle("muted", !g.partnership);
}
async function sitDown(event) {
  event.preventDefault();
  const body = {game: $("game").value, seat: $("seat").value, opponents: $("opponents").value.trim() || "rule",
                episode: $("episode").value};
  if (gameInfo().partnership) body.partner = $("partner").value.trim() || "rule";
  if ($("seed").value !== "") body.seed = Number($("seed").value);
  const options = $("options").value.trim();
  if (options) {
    try { body.options = JSON.parse(options); } catch (e) { showError("env options are not JSON: " + e.message); return; }
  }
  try { render(await api("POST", "/api/tables", body)); } catch (e) { showError(e.message); }
}

// ------------------------------------------------------------ the table
function position(seat, you) { return (seat - you + 4) % 4; }     // 0 bottom (you), 1 left, 2 top, 3 right
function handEl(seat, deal, legalCards) {
  const box = el("div", {}, el("div", {"class": "who", text: seat.name + " \u2014 " + seat.label +
                                       (seat.seat === deal.dealer ? " (dealer)" : "")}));
  if (seat.cards === null) {
    box.append(el("div", {"class": "hidden-hand", text: seat.count + (seat.count === 1 ? " card" : " cards")}));
    return box;
  }
  box.append(...suitLines(seat.cards, c => {
    const legal = legalCards.has(c);
    const attrs = legal ? {type: "button", title: "play " + c, onclick: () => move(c)} : {type: "button", title: c, disabled: ""};
    return cardEl(c, {tag: "button", rankOnly: true, extra: legal ? "legal" : "", attrs});
  }));
  return box;
}
function renderDeal(t) {
  const deal = t.deal;
  const legalCards = new Set(deal.legal.filter(a => a.card).map(a => a.text));
  for (const seat of deal.seats) {
    const box = $("pos-" + position(seat.seat, deal.you));
    box.className = "seat pos-" + position(seat.seat, deal.you) + (seat.to_move ? " to-move" : "");
    box.dataset.seat = seat.seat;
    box.replaceChildren(handEl(seat, deal, legalCards));
  }
  const trick = $("trick");
  trick.replaceChildren(...trickSlots(deal.trick.map(p => [position(p.seat, deal.you), p.card])));
  if (!deal.trick.length) trick.append(el("div", {"class": "slot-2 muted", text: deal.phase}));
  const last = deal.last_trick;
  $("last-trick").textContent = last ? "trick " + last.number + ": " + last.cards.map(p => SEATS[p.seat] + " " + cardLabel(p.card)).join(", ") +
                                       " \u2014 won by " + SEATS[last.winner] : "none yet";
  $("calls").textContent = deal.calls.length ? deal.calls.map(c => SEATS[c.seat] + ": " + c.text).join("  ") : "none";
  $("contract").textContent = deal.contract ? "contract " + deal.contract + (deal.declarer !== null ? " by " + SEATS[deal.declarer] : "") : "";
  $("turned").textContent = deal.turned ? "turned card " + cardLabel(deal.turned) : "";
  const won = deal.tricks_won ? " Tricks: " + SEATS.map((s, i) => s + " " + deal.tricks_won[i]).join(", ") + "." : "";
  $("status").textContent = (deal.your_turn ? "Your turn: " + (legalCards.size ? "click a card" : "click a call") + "."
                             : "Waiting for " + (deal.to_move === null ? "the table" : SEATS[deal.to_move]) + ".") + won;
  $("hint").hidden = !deal.hint;
  $("hint-text").textContent = "";
  const calls = deal.legal.filter(a => !a.card);
  $("actions").replaceChildren(...calls.map(a => el("button", {"class": "call", type: "button", "data-action": a.text,
                                                              text: a.text, onclick: () => move(a.text)})));
}
function scoreTable(sides) {
  const names = Object.keys(sides), items = [];
  for (const n of names) for (const k of Object.keys(sides[n])) if (!items.includes(k)) items.push(k);
  const head = el("tr", {}, el("th", {text: ""}), ...names.map(n => el("th", {text: n})));
  const rows = items.map(k => el("tr", {"data-item": k}, el("td", {"class": "text", text: k}),
                                 ...names.map(n => el("td", {text: String(sides[n][k] ?? 0)}))));
  return el("table", {"class": "grid"}, el("thead", {}, head), el("tbody", {}, ...rows));
}
function infoEl(info) {
  const box = el("div");
  const facts = [];
  for (const [k, v] of Object.entries(info || {})) {
    if (v !== null && typeof v === "object" && !Array.isArray(v) && Object.values(v).every(x => x !== null && typeof x === "object"))
      box.append(el("div", {"class": "muted", text: k.replace(/_/g, " ")}), scoreTable(v));
    else if (Array.isArray(v)) facts.push(k.replace(/_/g, " ") + ": " + v.map(x => Array.isArray(x) ? x.join(":") : x).join(", "));
    else if (v !== null && typeof v === "object") facts.push(k.replace(/_/g, " ") + ": " + JSON.stringify(v));
    else facts.push(k.replace(/_/g, " ") + ": " + (v === null ? "-" : v));
  }
  box.prepend(el("p", {"class": "muted", text: facts.join("; ")}));
  return box;
}
function renderResult(t) {
  const r = t.result;
  const yours = $("yours");
  yours.textContent = "Your points this deal: " + signed(r.yours) + "  (per player: " + r.points.map(signed).join(", ") + ")";
  yours.dataset.points = String(r.yours);
  const box = $("breakdown");
  box.replaceChildren(el("h3", {text: "Scoring"}), infoEl(r.info.deal));
  if (r.info.rubber) box.append(el("h3", {text: "Rubber"}), infoEl(r.info.rubber));
  $("dealt").replaceChildren(el("h3", {text: "Hands as dealt"}),
    ...r.hands.map((h, s) => el("div", {"class": "suit"}, SEATS[s] + ": " + h.map(cardLabel).join(" "))),
    el("div", {"class": "muted", text: "actions: " + r.actions.map(a => a[1]).join(" ")}));
  $("open-viewer").href = "/api/tables/" + t.id + "/viewer#board=" + r.number;
  $("next").textContent = t.episode_over ? (t.episode === "rubber" ? "New rubber" : "Next deal") : "Next deal of the rubber";
}
function renderHistory(t) {
  $("history").hidden = !t.deals.length;
  $("history-table").tBodies[0].replaceChildren(...t.deals.map(d => el("tr", {},
    el("td", {text: String(d.number)}), el("td", {"class": "text", text: d.contract || "-"}),
    el("td", {"class": d.yours > 0 ? "pos" : d.yours < 0 ? "neg" : "", text: signed(d.yours)}),
    el("td", {}, el("a", {href: "/api/tables/" + t.id + "/viewer#board=" + d.number, target: "_blank", text: "viewer"})))));
  $("total").textContent = signed(t.total);
  $("total").dataset.points = String(t.total);
}
function render(t) {
  table = t;
  $("setup").hidden = true;
  $("table").hidden = false;
  $("table").dataset.status = t.status;
  $("title").textContent = t.title + " \u2014 you are " + t.seat_name;
  $("deal-no").textContent = (t.episode === "rubber" ? "rubber " : "deal ") + t.episode_number +
    (t.seed === null ? "" : ", seed " + t.seed);
  $("where").textContent = "table " + t.id;
  const over = t.status === "deal_over";
  $("result").hidden = !over;
  $("felt").hidden = over; $("actions").hidden = over;
  if (over) {
    $("hint").hidden = true; $("hint-text").textContent = "";
    renderResult(t);
    $("status").textContent = "The deal is over.";
    $("actions").replaceChildren();
  } else renderDeal(t);
  renderHistory(t);
  document.body.dataset.status = t.status;
}
function showHint() {
  const hint = table && table.deal && table.deal.hint;
  if (!hint) return;
  $("hint-text").textContent = "the rule bot would play " + hint;
  for (const b of document.querySelectorAll("[data-card], [data-action]"))
    b.classList.toggle("hinted", b.dataset.card === hint || b.dataset.action === hint);
}
async function move(text) {
  if (document.body.dataset.busy === "1") return;
  try { render(await api("POST", "/api/tables/" + table.id + "/moves", {action: text})); }
  catch (e) { showError(e.message); }
}
async function nextDeal() {
  try { render(await api("POST", "/api/tables/" + table.id + "/next")); } catch (e) { showError(e.message); }
}
async function leave() {
  try { await api("DELETE", "/api/tables/" + table.id); } catch (e) { /* gone already */ }
  table = null;
  $("table").hidden = true; $("history").hidden = true; $("setup").hidden = false;
  document.body.dataset.status = "setup";
}

async function init() {
  try { catalogue = await api("GET", "/api/games"); } catch (e) { showError(e.message); return; }
  $("game").replaceChildren(...catalogue.games.map(g => el("option", {value: g.name, text: g.title})));
  $("game").addEventListener("change", fillGameChoices);
  fillGameChoices();
  $("specs").textContent = catalogue.agents.join(", ");
  $("setup-form").addEventListener("submit", sitDown);
  $("next").addEventListener("click", nextDeal);
  $("hint").addEventListener("click", showHint);
  $("leave").addEventListener("click", leave);
  document.body.dataset.status = "setup";
  document.body.dataset.ready = "1";
}
init();
