// parlour's page: set up a game, then play it by clicking the picture or the move buttons.
// Everything comes from the JSON API (parlour/web/app.py); the server checks every move.
"use strict";

const $ = (id) => document.getElementById(id);
let catalog = null;
let game = { id: null, seat: null, view: null, watching: false, timer: null };

// A server that listens beyond this machine wants its token (parlour serve prints the
// address with ?token=...): kept for this tab, taken out of the address bar.
const token = (() => {
  const url = new URL(window.location.href);
  const given = url.searchParams.get("token");
  if (given) {
    sessionStorage.setItem("parlour-token", given);
    url.searchParams.delete("token");
    history.replaceState(null, "", url.pathname + url.search + url.hash);
  }
  return sessionStorage.getItem("parlour-token");
})();

async function api(method, path, body) {
  const headers = { "Content-Type": "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  const response = await fetch(path, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await response.json();
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

function option(value, text) {
  const el = document.createElement("option");
  el.value = value; el.textContent = text === undefined ? value : text;
  return el;
}

// ----- setting up ---------------------------------------------------------------------

function currentGame() { return catalog.games.find((g) => g.name === $("game").value); }

function playerChoices(info) {
  return ["person", ...info.policies, ...catalog.models];
}

// "1 step", "2 steps": a count and its noun, singular for one.
function counted(n, noun, nouns) {
  return `${n} ${n === 1 ? noun : (nouns || noun + "s")}`;
}

// An option's control, from its declaration (parlour/games/base.py's Option): a fixed set
// of choices (True/False among them) is a select, a bounded integer a number box, any
// other value (an order, a list of cards) a text box read as JSON where it parses.
function optionControl(name, spec) {
  let control;
  if (spec.choices) {
    control = document.createElement("select");
    if (spec.default === null) control.appendChild(option("", "default"));
    for (const choice of spec.choices) control.appendChild(option(JSON.stringify(choice), shownChoice(choice)));
    control.value = spec.default === null ? "" : JSON.stringify(spec.default);
  } else {
    control = document.createElement("input");
    if (spec.low !== null) {
      control.type = "number"; control.min = spec.low; control.step = 1;
      if (spec.high !== null) control.max = spec.high;
    }
    control.value = spec.default === null ? "" : String(spec.default);
    control.placeholder = spec.default === null ? "default" : "";
  }
  control.name = name; control.dataset.option = name; control.id = `option-${name}`;
  return control;
}

function shownChoice(choice) {
  return typeof choice === "boolean" ? (choice ? "True" : "False") : String(choice);
}

function optionValue(control) {
  const text = control.value.trim();
  if (text === "") return undefined;
  if (control.tagName === "SELECT") return JSON.parse(text);
  if (control.type === "number") return Number.isFinite(Number(text)) ? Number(text) : text;
  try { return JSON.parse(text); } catch (error) { return text; }  // a bare word: the text itself
}

function drawSetup() {
  const info = currentGame();
  $("summary").textContent = info.summary;
  const options = $("options"); options.innerHTML = "";
  for (const [name, spec] of Object.entries(info.options)) {
    if (spec.default !== null && typeof spec.default === "object") continue;  // list options: the defaults
    const label = document.createElement("label");
    label.title = `${spec.help} (${spec.allowed})`;
    label.textContent = name + " ";
    const control = optionControl(name, spec);
    if (name === "num_players") control.addEventListener("input", () => drawSeats(info));
    label.appendChild(control);
    options.appendChild(label);
  }
  $("seats").innerHTML = "";  // another game: its own seats
  drawSeats(info);
  const hint = $("hint-spec"); hint.innerHTML = "";
  hint.appendChild(option("", "the game's reference player"));
  for (const p of info.policies) hint.appendChild(option(p));
}

// How many seats the options ask for (Goofspiel's num_players), else the game's default.
function seatCount(info) {
  const control = document.querySelector("[data-option=num_players]");
  const spec = info.options.num_players;
  const n = control ? parseInt(control.value, 10) : NaN;
  return spec && n >= spec.low && n <= spec.high ? n : info.players;
}

// The seats' choices, those already made kept (the number of players changed).
function drawSeats(info) {
  const seats = $("seats");
  const chosen = [...seats.querySelectorAll("select[data-seat]")].map((s) => [s.value, $(`params-${s.dataset.seat}`).value]);
  seats.innerHTML = "";
  for (let s = 0; s < seatCount(info); s++) {
    const label = document.createElement("label");
    label.className = "seat";
    label.textContent = `player_${s} `;
    const select = document.createElement("select");
    select.dataset.seat = s; select.id = `seat-${s}`;
    for (const choice of playerChoices(info)) select.appendChild(option(choice));
    select.value = s < chosen.length ? chosen[s][0]
      : s === 0 ? "person" : (info.policies.includes("random") ? "random" : info.policies[0]);
    const spec = document.createElement("input");
    spec.placeholder = "parameters, e.g. simulations=200"; spec.dataset.params = s; spec.id = `params-${s}`;
    if (s < chosen.length) spec.value = chosen[s][1];
    label.append(select, " ", spec);
    seats.appendChild(label);
  }
}

function setupRequest(watch) {
  const info = currentGame();
  const options = {};
  for (const control of document.querySelectorAll("[data-option]")) {
    const value = optionValue(control);
    if (value === undefined) continue;
    if (JSON.stringify(info.options[control.dataset.option].default) !== JSON.stringify(value)) options[control.dataset.option] = value;
  }
  const seats = [];
  for (let s = 0; s < seatCount(info); s++) {
    let spec = $(`seat-${s}`).value;
    const params = $(`params-${s}`).value.trim();
    if (spec === "person" && watch) spec = "random";
    if (params && spec !== "person") spec += (spec.includes(":") ? "," : ":") + params;
    seats.push(spec);
  }
  return { game: info.name, options, seats, seed: parseInt($("seed").value || "0", 10) };
}

async function start(watch) {
  $("setup-error").textContent = "";
  try {
    const created = await api("POST", "/api/sessions", setupRequest(watch));
    begin(created, watch);
  } catch (error) { $("setup-error").textContent = error.message; }
}

function begin(created, watch) {
  game = { id: created.id, seat: created.view.you, view: created.view, watching: watch, timer: null };
  $("setup").hidden = true; $("table").hidden = false;
  $("watch-controls").hidden = !watch;
  show(created.view);
  if (watch) scheduleStep();
  else followPolicies().catch((error) => { $("error").textContent = error.message; });
}

// The games in play on this server (they survive its restart when it keeps a state
// directory): any of them can be taken up again.
async function listGames() {
  const list = $("games-in-play"); list.innerHTML = "";
  try {
    const { games } = await api("GET", "/api/sessions");
    $("in-play").hidden = games.length === 0;
    for (const g of games.slice(0, 20)) {
      const item = document.createElement("li");
      const button = document.createElement("button");
      button.textContent = "Resume"; button.dataset.id = g.id;
      button.addEventListener("click", () => resume(g.id, g.seats));
      item.append(button, ` ${g.game}: ${g.seats.join(" vs ")}, ${counted(g.steps, "step")}, ${g.status}`);
      list.appendChild(item);
    }
  } catch (error) { $("in-play").hidden = true; }
}

async function resume(id, seats) {
  const person = seats.indexOf("person");
  const seat = person >= 0 ? person : null;
  try {
    const view = await api("GET", `/api/sessions/${id}` + (seat === null ? "" : `?seat=${seat}`));
    begin({ id, view }, seat === null && !view.over);
  } catch (error) { $("setup-error").textContent = error.message; }
}

// ----- the table ------------------------------------------------------------------------

function show(view) {
  game.view = view;
  $("error").textContent = ""; $("hint-text").textContent = "";
  $("status").textContent = `${view.game}: ${view.status}`;
  $("status").dataset.over = view.over;
  $("picture").innerHTML = view.picture;
  $("chooser").hidden = true;
  const moves = $("moves"); moves.innerHTML = "";
  const legal = new Set();
  for (const move of view.moves) {
    const button = document.createElement("button");
    button.textContent = move.text; button.dataset.action = move.action;
    button.addEventListener("click", () => play(move.action));
    moves.appendChild(button);
    for (const target of move.targets) legal.add(target);
  }
  for (const el of $("picture").querySelectorAll("[data-target]")) {
    if (legal.has(el.dataset.target)) el.classList.add("legal");
  }
  const log = $("log"); log.innerHTML = "";
  for (const entry of view.log) {
    const item = document.createElement("li");
    item.textContent = Object.entries(entry.moves).map(([who, text]) => `${who}: ${text}`).join(" | ");
    log.appendChild(item);
  }
  log.scrollTop = log.scrollHeight;
  $("undo").disabled = !view.can_undo || game.watching;
  $("hint").disabled = view.moves.length === 0;
  $("again").hidden = !view.stalled;
}

$("picture").addEventListener("click", (event) => {
  const el = event.target.closest("[data-target]");
  if (!el || !game.view) return;
  const moves = game.view.moves.filter((m) => m.targets.includes(el.dataset.target));
  if (moves.length === 1) { play(moves[0].action); return; }
  if (moves.length === 0) return;
  const chooser = $("chooser"); chooser.innerHTML = "<span>choose: </span>";
  for (const move of moves) {
    const button = document.createElement("button");
    button.textContent = move.text; button.dataset.action = move.action;
    button.addEventListener("click", () => play(move.action));
    chooser.appendChild(button);
  }
  chooser.hidden = false;
});

async function play(action) {
  try {
    show(await api("POST", `/api/sessions/${game.id}/move`, { seat: game.seat, action }));
    await followPolicies();
    await followPeople();
  } catch (error) { $("error").textContent = error.message; }
}

// A reply that took the policies longer than the server's per-move limit goes on step by
// step; a policy that could not choose in time stalls the game (the status says so).
async function followPolicies() {
  while (!game.watching && game.view.policies_to_move && !game.view.stalled) {
    show(await api("POST", `/api/sessions/${game.id}/step`));
  }
}

$("again").addEventListener("click", async () => {
  try {
    show(await api("POST", `/api/sessions/${game.id}/step`));
    await followPolicies();
    await followPeople();
  } catch (error) { $("error").textContent = error.message; }
});

// With several people at one screen, the view follows whoever must choose next.
async function followPeople() {
  const view = game.view;
  if (view.over || view.moves.length > 0 || !view.waiting_for.length) return;
  game.seat = view.waiting_for[0];
  show(await api("GET", `/api/sessions/${game.id}?seat=${game.seat}`));
}

$("undo").addEventListener("click", async () => {
  try { show(await api("POST", `/api/sessions/${game.id}/undo`, { seat: game.seat })); await followPolicies(); }
  catch (error) { $("error").textContent = error.message; }
});

$("hint").addEventListener("click", async () => {
  const spec = $("hint-spec").value;
  try {
    const hint = await api("GET", `/api/sessions/${game.id}/hint?seat=${game.seat}` + (spec ? `&spec=${encodeURIComponent(spec)}` : ""));
    $("hint-text").textContent = `${hint.spec} would play ${hint.text} (${hint.evaluation})`;
  } catch (error) { $("error").textContent = error.message; }
});

$("save").addEventListener("click", async () => {
  const record = await api("GET", `/api/sessions/${game.id}/record`);
  const blob = new Blob([JSON.stringify(record, null, 1)], { type: "application/json" });
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob); link.download = `${record.game}-game.json`;
  link.click();
});

$("load").addEventListener("change", async (event) => {
  const file = event.target.files[0];
  if (!file) return;
  try {
    const created = await api("POST", "/api/sessions/load", JSON.parse(await file.text()));
    begin(created, false);
  } catch (error) { $("setup-error").textContent = `not loaded: ${error.message}`; }
});

let arena = null;
$("arena").addEventListener("change", async (event) => {
  const file = event.target.files[0];
  if (!file) return;
  try {
    arena = JSON.parse(await file.text());
    const select = $("arena-game"); select.innerHTML = "";
    for (const row of arena.games_played || []) {
      const seats = Object.keys(row).filter((k) => k.startsWith("seat_")).map((k) => row[k]).join(" vs ");
      select.appendChild(option(row.game, `game ${row.game}: ${seats} (${counted(row.length, "move")})`));
    }
    select.hidden = false; $("replay").hidden = false;
  } catch (error) { $("setup-error").textContent = `not an arena file: ${error.message}`; }
});

$("replay").addEventListener("click", async () => {
  try {
    // only the chosen game is sent (the server reads bodies up to a size)
    const index = parseInt($("arena-game").value, 10);
    const row = (arena.games_played || []).find((r) => r.game === index);
    const chosen = { game: arena.game, options: arena.options, games_played: row ? [row] : [] };
    const created = await api("POST", "/api/sessions/replay", { arena: chosen, index });
    begin(created, true);
  } catch (error) { $("setup-error").textContent = error.message; }
});

$("new").addEventListener("click", () => {
  clearTimeout(game.timer); game.watching = false;
  $("table").hidden = true; $("setup").hidden = false;
  listGames();
});

// ----- watch mode: the policies play, the page follows at the chosen speed -----------------

function scheduleStep() {
  clearTimeout(game.timer);
  if (!game.watching || game.view.over) return;
  game.timer = setTimeout(async () => {
    try { show(await api("POST", `/api/sessions/${game.id}/step`)); scheduleStep(); }
    catch (error) { $("error").textContent = error.message; }
  }, parseInt($("speed").value, 10));
}

$("pause").addEventListener("click", () => {
  game.watching = !game.watching;
  $("pause").textContent = game.watching ? "Pause" : "Resume";
  scheduleStep();
});

$("play").addEventListener("click", () => start(false));
$("watch").addEventListener("click", () => start(true));
$("game").addEventListener("change", drawSetup);

(async () => {
  catalog = await api("GET", "/api/catalog");
  for (const info of catalog.games) $("game").appendChild(option(info.name));
  $("limits").textContent = `On this server a player thinks at most ${catalog.limits.move_seconds} s per move; `
    + `a game is kept ${counted(Math.round(catalog.limits.idle_seconds / 60), "minute")} after its last move.`;
  drawSetup();
  listGames();
})();
