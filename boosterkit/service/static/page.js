// The organizer page: fill the choices from the API, fetch a minigame sheet (GET /sheet) or
// sealed pools (POST /pool), show it, print it. The form's values survive a reload (the URL's
// query first, then localStorage); an address with them (a shared link) deals at once.
"use strict";

const $ = (id) => document.getElementById(id);
const NOT_BOOSTER_SETS = new Set(["token", "minigame", "memorabilia", "promo", "alchemy"]);
const FIELDS = ["mode", "set", "minigame", "players", "packs", "product", "seed", "images", "lang",
  "paper"];
// What the address keeps after a deal or an opening (a sheet's address has no mode).
const QUERY = {
  sheet: ["set", "minigame", "players", "product", "seed", "images", "lang"],
  pool: ["mode", "set", "players", "packs", "product", "seed", "images", "paper"],
};
const MAX_POOL_PLAYERS = 32; // POST /pool's limit
const STORE_KEY = "boosterkit.organizer.form";
let loadedSets = []; // the booster sets in the database: [{code, name}]
let pendingProduct = null; // a restored product, chosen once the set's products are listed
let productsFor = null; // the mode and set whose products the product list holds
let loadedProducts = []; // those products: [{code, kind, name, default}]
let productsLoading = Promise.resolve(); // the product list being filled
let deckListURLs = []; // the blob URLs of the deck-list downloads shown

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

// The bundled sample (no database loaded): say so, with what loads real data.
function showSample(health) {
  const note = $("sample-note");
  note.hidden = !health.sample;
  if (note.hidden) return;
  const code = (text) => Object.assign(document.createElement("code"), { textContent: text });
  note.replaceChildren(
    `Serving the bundled sample (${health.sample.toUpperCase()}): real packs of that set ` +
      "and every minigame card. ",
    code("boosterkit sync SET"),
    " loads other sets; then restart ",
    code("boosterkit serve"),
    ".",
  );
}

async function loadChoices() {
  const [sets, games, health] = await Promise.all(
    [getJSON("/sets"), getJSON("/minigames"), getJSON("/health")],
  );
  showSample(health);
  // Packs come from booster sets: leave out the token, minigame and memorabilia sets.
  const boosterSets = sets.filter((s) => !NOT_BOOSTER_SETS.has(s.set_type) && s.cards > 0);
  for (const s of boosterSets) addOption($("set"), s.code, `${s.name} (${s.code.toUpperCase()})`);
  loadedSets = boosterSets.map((s) => ({ code: s.code, name: s.name }));
  for (const g of games) {
    addOption($("minigame"), g.id, g.dealable ? g.name : `${g.name} (setup not known)`);
    $("minigame").lastChild.disabled = !g.dealable;
  }
  // The first view: a game the loaded sets deal (one printed for a loaded set), else any
  // dealable one (dealt on a loaded set).
  const loaded = (g) => (g.sets ?? []).some((c) => loadedSets.some((s) => s.code === c));
  const first = games.find((g) => g.dealable && loaded(g)) ?? games.find((g) => g.dealable);
  if (first) $("minigame").value = first.id;
  if (first && !loaded(first) && loadedSets.length) $("set").value = loadedSets[0].code;
  $("minigame").dataset.catalogue = JSON.stringify(games);
  restoreForm();
  await applyMode();
}

function mode() {
  return document.querySelector("input[name=mode]:checked")?.value ?? "sheet";
}

function currentGame() {
  const games = JSON.parse($("minigame").dataset.catalogue || "[]");
  return games.find((g) => g.id === $("minigame").value);
}

// --- the form survives a reload --------------------------------------------------------------

function formValues() {
  const values = {};
  for (const f of FIELDS.slice(1)) values[f] = f === "images" ? $(f).checked : $(f).value;
  values.mode = mode();
  if (pendingProduct !== null) values.product = pendingProduct;
  return values;
}

function setField(name, value) {
  const field = $(name);
  if (name === "mode") {
    const radio = $(`mode-${value}`);
    if (radio) radio.checked = true;
  } else if (name === "product") {
    pendingProduct = value ? String(value) : null; // its options come with the set's products
  } else if (name === "images") {
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

function formQuery() {
  const values = formValues();
  const query = new URLSearchParams();
  for (const f of QUERY[values.mode]) {
    if (values[f] !== "" && !(f === "lang" && values[f] === "en")) query.set(f, values[f]);
  }
  return query;
}

// --- the mode: a minigame sheet or sealed pools -----------------------------------------------

// Show one mode's fields; the other's are hidden and disabled (left out of the validation).
function showPart(selector, on) {
  for (const part of document.querySelectorAll(selector)) {
    part.hidden = !on;
    for (const field of part.querySelectorAll("input, select")) field.disabled = !on;
  }
}

async function applyMode() {
  const pool = mode() === "pool";
  showPart(".sheet-only", !pool);
  showPart(".pool-only", pool);
  // Pools are opened from a set the organizer chooses: "the minigame's own set" is for games.
  $("set").options[0].disabled = pool;
  if (pool && $("set").value === "" && loadedSets.length) $("set").value = loadedSets[0].code;
  $("deal").textContent = pool ? "Open pools" : "Deal";
  if (!pool) {
    describeMinigame();
    await loadProducts();
    return;
  }
  offerSets();
  $("players").min = 1;
  $("players").max = MAX_POOL_PLAYERS;
  $("minigame-info").textContent = "Sealed pools and draft pods: each player's packs, sorted " +
    "by colour and type, on a printed page of their own. Pool i depends only on the seed and " +
    "i. At most 360 packs (players × packs) at a time.";
  await loadProducts();
}

// The set whose products the product choice lists: the chosen one or, for a minigame dealt
// on "its own set", the first set it was printed for that is loaded (as the API picks it).
function productSet() {
  const code = $("set").value;
  if (code || mode() === "pool") return code;
  const own = currentGame()?.sets ?? [];
  return own.find((c) => loadedSets.some((s) => s.code === c)) ?? "";
}

// The set's booster products (GET /sets/{code}/products: set, draft, play…); a restored (or
// still valid) choice is kept. Empty: the set's default (pools) or the game's own product.
function loadProducts() {
  const key = `${mode()}:${productSet()}`;
  if (productsFor !== key) {
    productsFor = key;
    productsLoading = fillProducts(key); // awaited by whoever asks next (a linked deal)
  }
  return productsLoading;
}

async function fillProducts(key) {
  const code = productSet();
  const select = $("product");
  const wanted = pendingProduct ?? select.value;
  select.replaceChildren();
  loadedProducts = [];
  const game = currentGame();
  const own = mode() === "pool"
    ? "the set's default"
    : `the minigame's own (${game?.product ?? "set"} boosters)`;
  addOption(select, "", own);
  if (!code) return;
  let products;
  try {
    products = await getJSON(`/sets/${encodeURIComponent(code)}/products`);
  } catch {
    productsFor = null; // dealing still works with the default; try again on the next change
    return;
  }
  if (`${mode()}:${productSet()}` !== key) return; // another set was chosen meanwhile
  const setName = loadedSets.find((s) => s.code === code)?.name ?? "";
  for (const p of products) {
    addOption(select, p.code, productLabel(p, setName));
    if (mode() === "pool" && p.default_for_set) {
      select.options[0].textContent = `the set's default (${p.code})`;
    }
  }
  loadedProducts = products.map((p) => ({
    code: p.code, kind: p.kind, name: p.name, default: p.default,
  }));
  if (mode() === "pool") await addSealed(select, code, setName, key);
  pendingProduct = null;
  if ([...select.options].some((o) => o.value === wanted)) select.value = wanted;
}

// Pools: the set's sealed products that open into packs (GET /sets/{code}/sealed: a bundle,
// a prerelease pack, a box), each a pool's "packs" when chosen; none loaded, none listed.
async function addSealed(select, code, setName, key) {
  let sealed;
  try {
    sealed = await getJSON(`/sets/${encodeURIComponent(code)}/sealed`);
  } catch {
    return;
  }
  if (`${mode()}:${productSet()}` !== key) return;
  const group = document.createElement("optgroup");
  group.label = "Sealed products (Packs per player: how many of it)";
  for (const p of sealed.filter((s) => s.opens)) {
    const name = setName && p.name.startsWith(`${setName} `) ? p.name.slice(setName.length + 1) : p.name;
    const packs = Object.entries(p.packs).map(([c, n]) => `${n} ${c}`);
    if (p.cards.length) packs.push(`${p.cards.length} card${p.cards.length > 1 ? "s" : ""}`);
    addOption(group, p.name, `${name}: ${packs.join(" + ")}`);
  }
  if (group.children.length) select.append(group);
}

// A product as the list shows it: its name without its set's, which the Set field shows,
// its kind when the name does not say it, and its code ("Set Booster (afr-set)"), so the
// choice reads whole in the box.
function productLabel(p, setName) {
  const name = setName && p.name.startsWith(`${setName} `) ? p.name.slice(setName.length + 1) : "";
  const shown = name || p.name;
  const kind = shown.toLowerCase().includes(p.kind.toLowerCase()) ? "" : `${p.kind}: `;
  return `${kind}${shown} (${p.code})`;
}

// A refused deal names a product of the set that deals the same seed (`--product draft`):
// offer it as a button, so the organizer need not pick a new seed.
function offerProduct(message) {
  const box = $("product-offer");
  box.replaceChildren();
  const kind = /`--product ([a-z0-9_-]+)`/.exec(message)?.[1];
  const product = loadedProducts.find((p) => p.kind === kind && p.default);
  box.hidden = !(kind && product);
  if (box.hidden) return;
  const button = document.createElement("button");
  button.type = "button";
  button.dataset.product = product.code;
  button.textContent = `Deal seed ${$("seed").value} with ${product.name} (${product.code})`;
  button.addEventListener("click", () => {
    $("product").value = product.code;
    saveForm();
    $("deal-form").requestSubmit();
  });
  box.append(button);
}

// --- the chosen game's own set ---------------------------------------------------------------

// When the set is "the minigame's own set" and none of the sets the game was printed for is
// loaded, say so and offer the sets that are.
function offerSets() {
  if (mode() === "pool") {
    $("set-offer").hidden = true;
    return;
  }
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
  if (mode() === "pool") return;
  const game = currentGame();
  offerSets();
  loadProducts();
  if (!game) return;
  $("players").min = game.players_min ?? 1;
  $("players").max = game.players_max ?? 32;
  const players = Number($("players").value);
  if (game.players_min && players < game.players_min) $("players").value = game.players_min;
  if (game.players_max && players > game.players_max) $("players").value = game.players_max;
  const parts = [playersText(game.players_min ?? 1, game.players_max)];
  if (game.packs) parts.push(`packs: ${game.packs}`);
  if (game.product) parts.push(`${game.product} boosters`);
  if (game.minutes) parts.push(`about ${game.minutes} minutes`);
  $("minigame-info").textContent = `${game.name}: ${parts.join(" · ")}`;
}

// "2 players", "1 player", "2–6 players", "2+ players".
function playersText(min, max) {
  if (max === null || max === undefined) return `${min}+ players`;
  if (min === max) return `${min} player${min === 1 ? "" : "s"}`;
  return `${min}–${max} players`;
}

function sheetURL() {
  const query = new URLSearchParams({
    minigame: $("minigame").value,
    players: $("players").value,
    seed: $("seed").value,
  });
  if ($("set").value) query.set("set", $("set").value);
  if ($("product").value) query.set("product", $("product").value);
  if ($("images").checked) query.set("images", "true");
  if ($("lang").value !== "en") query.set("lang", $("lang").value);
  return `/sheet?${query}`;
}

// After an error no sheet (nor pool) may stay on the page: Print would print another game.
function clearSheet() {
  const host = $("sheet");
  host.shadowRoot?.replaceChildren();
  host.hidden = true;
  $("print").disabled = true;
  showDeckLists([]);
}

// The sheet is a whole HTML document: its styles and body go into a shadow root, so they
// apply to the sheet only and the page's print rules still hide the form. The styles are
// constructed style sheets: the page's Content-Security-Policy allows no inline <style>.
// (They are taken out before parsing: a parsed <style> would be refused by the policy too.)
function showSheet(html) {
  const styles = [];
  const markup = html.replace(/<style>([\s\S]*?)<\/style>/g, (_, css) => {
    styles.push(css);
    return "";
  });
  const doc = new DOMParser().parseFromString(markup, "text/html");
  const host = $("sheet");
  const root = host.shadowRoot || host.attachShadow({ mode: "open" });
  root.replaceChildren();
  root.adoptedStyleSheets = styles.map((css) => {
    const scoped = new CSSStyleSheet();
    // In a shadow root there is no <body>: the sheet's body rule styles the host instead.
    scoped.replaceSync(css.replace(/(^|[}\s,])body(?=\s*[{,])/g, "$1:host"));
    return scoped;
  });
  const body = document.createElement("div");
  body.className = "sheet-body";
  body.append(...[...doc.body.childNodes].map((n) => document.importNode(n, true)));
  root.append(body);
  host.hidden = false;
}

async function dealSheet() {
  const response = await fetch(sheetURL());
  if (!response.ok) throw new Error(await errorMessage(response));
  showSheet(await response.text());
  showDeckLists([]);
  showStatus(`Dealt with seed ${$("seed").value}. The same seed deals the same setup again.`);
}

// POST /pool with the form's arguments; the answer (format html, decklist, pdf…): its text,
// or with asBlob its bytes.
async function postPool(format, asBlob = false) {
  const seed = $("seed").value;
  if (!/^\d+$/.test(seed)) throw new Error(`seed ${seed}: expected a whole number ≥ 0`);
  const packs = $("packs").value.trim();
  const args = {
    set: $("set").value,
    players: Number($("players").value),
    packs: /^\d+$/.test(packs) ? Number(packs) : packs, // a count, or a spec: afr:3,stx:3
    format,
  };
  if ($("product").value) args.product = $("product").value;
  if (format === "html" && $("images").checked) args.images = true;
  if (format.endsWith("pdf")) args.paper = $("paper").value;
  // The seed goes in as written: a JavaScript number would round seeds above 2^53.
  const body = `{"seed":${seed},${JSON.stringify(args).slice(1)}`;
  const response = await fetch("/pool", {
    method: "POST", headers: { "Content-Type": "application/json" }, body,
  });
  if (!response.ok) throw new Error(await errorMessage(response));
  return asBlob ? response.blob() : response.text();
}

// A PDF or CSV of the pools shown, asked for when its button is pressed, then saved.
async function downloadPool(format, name) {
  showStatus("Printing…");
  try {
    const url = URL.createObjectURL(await postPool(format, true));
    const link = document.createElement("a");
    link.href = url;
    link.download = name;
    link.click();
    setTimeout(() => URL.revokeObjectURL(url), 60000);
    showStatus(`Saved ${name} (seed ${$("seed").value}).`);
  } catch (error) {
    showStatus(error.message, true);
  }
}

// The decklist format is every player's list, each after a "// Player i" line: one
// download per player, as `boosterkit pool -f decklist -o DIR` writes pool-i.txt.
function splitDeckLists(text) {
  const parts = text.split(/^\/\/ Player (\d+)\n/m);
  const lists = [];
  for (let i = 1; i + 1 < parts.length; i += 2) {
    lists.push({ player: parts[i], text: parts[i + 1].replace(/\n+$/, "\n") });
  }
  return lists;
}

function showDeckLists(lists) {
  for (const url of deckListURLs) URL.revokeObjectURL(url);
  deckListURLs = [];
  const links = $("downloads-links");
  links.replaceChildren();
  for (const { player, text } of lists) {
    const url = URL.createObjectURL(new Blob([text], { type: "text/plain" }));
    deckListURLs.push(url);
    const link = document.createElement("a");
    link.href = url;
    link.download = `pool-${player}.txt`;
    link.dataset.player = player;
    link.textContent = `Player ${player}`;
    links.append(link);
  }
  $("downloads").hidden = lists.length === 0;
  $("pdf-downloads").hidden = lists.length === 0;
}

async function openPools() {
  const [html, lists] = await Promise.all([postPool("html"), postPool("decklist")]);
  showSheet(html);
  showDeckLists(splitDeckLists(lists));
  const players = $("players").value;
  showStatus(`Opened ${players} pool${players === "1" ? "" : "s"} of ${$("packs").value} ` +
    `packs with seed ${$("seed").value}. The same seed opens the same pools again.`);
}

async function submitForm(event) {
  event.preventDefault();
  await dealForm();
}

// Deal (or open pools) with the form's values; the address then holds them.
async function dealForm() {
  if (!$("deal-form").reportValidity()) return;
  const pool = mode() === "pool";
  $("deal").disabled = true;
  $("print").disabled = true;
  saveForm();
  showStatus(pool ? "Opening…" : "Dealing…");
  offerProduct("");
  try {
    await (pool ? openPools() : dealSheet());
    $("print").disabled = false;
    history.replaceState(null, "", `?${formQuery()}`);
  } catch (error) {
    clearSheet();
    showStatus(error.message, true);
    offerSets();
    if (!pool) offerProduct(error.message);
  } finally {
    $("deal").disabled = false;
  }
}

function init() {
  $("seed").value = randomSeed();
  $("new-seed").addEventListener("click", () => { $("seed").value = randomSeed(); saveForm(); });
  $("minigame").addEventListener("change", describeMinigame);
  $("set").addEventListener("change", () => { offerSets(); loadProducts(); });
  // A sealed product chosen for pools: one of it a player, unless asked for more.
  $("product").addEventListener("change", () => {
    const group = $("product").selectedOptions[0]?.parentElement;
    if (mode() === "pool" && group?.tagName === "OPTGROUP") $("packs").value = "1";
  });
  for (const radio of document.querySelectorAll("input[name=mode]")) {
    radio.addEventListener("change", applyMode);
  }
  $("deal-form").addEventListener("change", saveForm);
  $("deal-form").addEventListener("input", saveForm);
  $("deal-form").addEventListener("submit", submitForm);
  $("print").addEventListener("click", () => window.print());
  $("pdf-pools").addEventListener("click", () => downloadPool("pdf", "pools.pdf"));
  $("pdf-registration").addEventListener("click",
    () => downloadPool("registration-pdf", "registration.pdf"));
  $("csv-registration").addEventListener("click",
    () => downloadPool("registration-csv", "registration.csv"));
  // A link with the form's values (the address after a deal, shared) deals the same table.
  const linked = FIELDS.some((f) => new URLSearchParams(window.location.search).has(f));
  loadChoices()
    .then(() => loadProducts()) // a linked product is chosen once they are in
    .then(() => (linked ? dealForm() : undefined))
    .then(() => { document.body.dataset.ready = "true"; })
    .catch((error) => showStatus(`Cannot load the choices: ${error.message}`, true));
}

document.addEventListener("DOMContentLoaded", init);
