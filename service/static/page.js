// The organizer page: fill the choices from the API, fetch the sheet, show it, print it.
"use strict";

const $ = (id) => document.getElementById(id);
const NOT_BOOSTER_SETS = new Set(["token", "minigame", "memorabilia", "promo", "alchemy"]);

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
  for (const g of games) {
    addOption($("minigame"), g.id, g.dealable ? g.name : `${g.name} (setup not known)`);
    $("minigame").lastChild.disabled = !g.dealable;
  }
  const first = games.find((g) => g.dealable);
  if (first) $("minigame").value = first.id;
  $("minigame").dataset.catalogue = JSON.stringify(games);
  describeMinigame();
}

function describeMinigame() {
  const games = JSON.parse($("minigame").dataset.catalogue || "[]");
  const game = games.find((g) => g.id === $("minigame").value);
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
  return `/sheet?${query}`;
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
  showStatus("Dealing…");
  try {
    const response = await fetch(sheetURL());
    if (!response.ok) throw new Error(await errorMessage(response));
    showSheet(await response.text());
    $("print").disabled = false;
    showStatus(`Dealt with seed ${$("seed").value}. The same seed deals the same setup again.`);
  } catch (error) {
    showStatus(error.message, true);
  } finally {
    $("deal").disabled = false;
  }
}

function init() {
  $("seed").value = randomSeed();
  $("new-seed").addEventListener("click", () => { $("seed").value = randomSeed(); });
  $("minigame").addEventListener("change", describeMinigame);
  $("deal-form").addEventListener("submit", dealSheet);
  $("print").addEventListener("click", () => window.print());
  loadChoices()
    .then(() => { document.body.dataset.ready = "true"; })
    .catch((error) => showStatus(`Cannot load the choices: ${error.message}`, true));
}

document.addEventListener("DOMContentLoaded", init);
