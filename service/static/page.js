// The organizer page: fill the choices from the API, fetch the sheet, show it, print it.
// The form's values survive a reload (the URL's query first, then localStorage).
"use strict";

const $ = (id) => document.getElementById(id);
const NOT_BOOSTER_SETS = new Set(["token", "minigame", "memorabilia", "promo", "alchemy"]);
const FIELDS = ["set", "minigame", "players", "seed", "images"];
const STORE_KEY = "boosterkit.organizer.form";
let loadedSets = []; // the booster sets in the database: [{code, name}]

function randomSeed() {
  const words = new Uint32Array(1);
  crypto.getRandomValues(words);
  return words[0];
}

function showStatus(message, isError = false) {
  $("status").textContent = message;
  $("status").className = isError ? "no-print error" : "no-print";
}

async function errorMessage(response) {
  try {
    const body = await response.json();
    return body.error || response.statusText;
  } catch {
    return `${response.status} ${response.statusText}`;
  }
}

async function getJSON(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(await errorMessage(response));
  return response.json();
}

function addOption(select, value, label) {
  const option = document.createElement("option");
  option.value = value;
  option.textContent = label;
  select.append(option);
}

async function loadChoices() {
  const [sets, games] = await Promise.all([getJSON("/sets"), getJSON("/minigames")]);
  // Packs come from booster sets: leave out the token, minigame and memorabilia sets.
  const boosterSets = sets.filter((s) => !NOT_BOOSTER_SETS.has(s.set_type) && s.cards > 0);
  for (const s of boosterSets) addOption($("set"), s.code, `${s.name} (${s.code.toUpperCase()})`);
  loadedSets = boosterSets.map((s) => ({ code: s.code, name: s.name }));
  for (const g of games) {
    addOption($("minigame"), g.id, g.dealable ? g.name : `${g.name} (setup not known)`);
    $("minigame").lastChild.disabled = !g.dealable;
  }
  const first = games.find((g) => g.dealable);
  if (first) $("minigame").value = first.id;
  $("minigame").dataset.catalogue = JSON.stringify(games);
  restoreForm();
  describeMinigame();
}

function currentGame() {
  const games = JSON.parse($("minigame").dataset.catalogue || "[]");
  return games.find((g) => g.id === $("minigame").value);
}

// --- the form survives a reload --------------------------------------------------------------

function formValues() {
  const values = {};
  for (const f of FIELDS) values[f] = f === "images" ? $(f).checked : $(f).value;
  return values;
}

function setField(name, value) {
  const field = $(name);
  if (name === "images") {
    field.checked = value === true || value === "true";
  } else if (field.tagName === "SELECT") {
    const option = [...field.options].find((o) => o.value === String(value));
    if (option && !option.disabled) field.value = option.value;
  } else if (value !== "" && value !== null && value !== undefined) {
    field.value = value;
  }
}

function saveForm() {
  try {
    localStorage.setItem(STORE_KEY, JSON.stringify(formValues()));
  } catch {
    // storage off (private window, quota): the URL query still keeps a dealt game
  }
}

function restoreForm() {
  const query = new URLSearchParams(window.location.search);
  let saved = {};
  if (FIELDS.some((f) => query.has(f))) {
    for (const f of FIELDS) if (query.has(f)) saved[f] = query.get(f);
  } else {
    try {
      saved = JSON.parse(localStorage.getItem(STORE_KEY) || "{}") || {};
    } catch {
      saved = {};
    }
  }
  for (const f of FIELDS) if (f in saved) setField(f, saved[f]);
}

// --- the chosen game's own set ---------------------------------------------------------------

// When the set is "the minigame's own set" and none of the sets the game was printed for is
// loaded, say so and offer the sets that are.
function offerSets() {
  const game = currentGame();
  const own = game?.sets ?? [];
  const missing = game && $("set").value === "" &&
    !own.some((code) => loadedSets.some((s) => s.code === code));
  $("set-offer").hidden = !missing;
  if (!missing) return;
  const printed = own.map((c) => c.toUpperCase()).join(", ") || "no known set";
  const choices = $("set-offer-choices");
  choices.replaceChildren();
  if (!loadedSets.length) {
    $("set-offer-text").textContent = `${game.name} was printed for ${printed}, which is not ` +
      "loaded, and no booster set is: import one (boosterkit sync SET or boosterkit import).";
    return;
  }
  const names = loadedSets.map((s) => s.code.toUpperCase()).join(", ");
  $("set-offer-text").textContent = `${game.name} was printed for ${printed}, which is not ` +
    `loaded. Loaded sets: ${names}. Deal it with one of them:`;
  for (const s of loadedSets) {
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.set = s.code;
    button.textContent = `${s.name} (${s.code.toUpperCase()})`;
    button.addEventListener("click", () => {
      $("set").value = s.code;
      saveForm();
      offerSets();
    });
    choices.append(button);
  }
}

function describeMinigame() {
  const game = currentGame();
  offerSets();
  if (!game) return;
  $("players").min = game.players_min ?? 1;
  $("players").max = game.players_max ?? 32;
  const players = Number($("players").value);
  if (game.players_min && players < game.players_min) $("players").value = game.players_min;
  if (game.players_max && players > game.players_max) $("players").value = game.players_max;
  const parts = [`players ${game.players_min ?? 1}–${game.players_max ?? "any"}`];
  if (game.packs) parts.push(`packs: ${game.packs}`);
  if (game.product) parts.push(`${game.product} boosters`);
  if (game.minutes) parts.push(`about ${game.minutes} minutes`);
  $("minigame-info").textContent = `${game.name}: ${parts.join(" · ")}`;
}

function sheetURL() {
  const query = new URLSearchParams({
    minigame: $("minigame").value,
    players: $("players").value,
    seed: $("seed").value,
  });
  if ($("set").value) query.set("set", $("set").value);
  if ($("images").checked) query.set("images", "true");
  return `/sheet?${query}`;
}

// After an error no sheet may stay on the page: Print would print another game.
function clearSheet() {
  const host = $("sheet");
  host.shadowRoot?.replaceChildren();
  host.hidden = true;
  $("print").disabled = true;
}

// The sheet is a whole HTML document: its styles and body go into a shadow root, so they
// apply to the sheet only and the page's print rules still hide the form.
function showSheet(html) {
  const doc = new DOMParser().parseFromString(html, "text/html");
  const host = $("sheet");
  const root = host.shadowRoot || host.attachShadow({ mode: "open" });
  root.replaceChildren();
  for (const style of doc.querySelectorAll("style")) {
    const scoped = document.createElement("style");
    // In a shadow root there is no <body>: the sheet's body rule styles the host instead.
    scoped.textContent = style.textContent.replace(/(^|[}\s,])body(?=\s*[{,])/g, "$1:host");
    root.append(scoped);
  }
  const body = document.createElement("div");
  body.className = "sheet-body";
  body.append(...[...doc.body.childNodes].map((n) => document.importNode(n, true)));
  root.append(body);
  host.hidden = false;
}

async function dealSheet(event) {
  event.preventDefault();
  if (!$("deal-form").reportValidity()) return;
  $("deal").disabled = true;
  $("print").disabled = true;
  saveForm();
  showStatus("Dealing…");
  try {
    const response = await fetch(sheetURL());
    if (!response.ok) throw new Error(await errorMessage(response));
    showSheet(await response.text());
    $("print").disabled = false;
    const query = new URLSearchParams(formValues());
    if (!$("set").value) query.delete("set");
    history.replaceState(null, "", `?${query}`);
    showStatus(`Dealt with seed ${$("seed").value}. The same seed deals the same setup again.`);
  } catch (error) {
    clearSheet();
    showStatus(error.message, true);
    offerSets();
  } finally {
    $("deal").disabled = false;
  }
}

function init() {
  $("seed").value = randomSeed();
  $("new-seed").addEventListener("click", () => { $("seed").value = randomSeed(); saveForm(); });
  $("minigame").addEventListener("change", describeMinigame);
  $("set").addEventListener("change", offerSets);
  $("deal-form").addEventListener("change", saveForm);
  $("deal-form").addEventListener("input", saveForm);
  $("deal-form").addEventListener("submit", dealSheet);
  $("print").addEventListener("click", () => window.print());
  loadChoices()
    .then(() => { document.body.dataset.ready = "true"; })
    .catch((error) => showStatus(`Cannot load the choices: ${error.message}`, true));
}

document.addEventListener("DOMContentLoaded", init);
