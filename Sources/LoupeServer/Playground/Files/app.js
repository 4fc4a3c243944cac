// The playground page: builds imgproxy URLs from controls and shows what the service answers,
// the poster feed through POST /batch, and the sectioned menu. Same-origin fetch only.
"use strict";

const $ = (id) => document.getElementById(id);
const P = window.LoupePlaceholders;
// Where the routes are mounted ("/" for `loupe serve`, "/images/" in an app that mounts them
// there): every request of the page goes below it.
const root = location.pathname.replace(/[^/]*$/, "");
const state = { config: null, generation: 0, infoSource: null, feedStarted: false, menuStarted: false };

// The source as the last segment of a plain URL: percent-encoded where imgproxy would read
// a character as its own ('?', '#', '@' and '%').
function plainSource(source) {
  return encodeURI(source).replace(/[?#@]/g, (c) => encodeURIComponent(c));
}

// Signs `path` (everything after the signature) as this server wants: 'insecure' when it
// serves unsigned URLs, else through the playground's signing endpoint.
async function signed(path) {
  if (state.config.signing !== "key") return root + "insecure" + path;
  return root + (await signature(path)) + path;
}

async function signature(body) {
  const response = await fetch(root + "playground/sign", { method: "POST", body });
  if (!response.ok) throw new Error("signing failed: " + response.status);
  return (await response.json()).signature;
}

function number(id) { const v = Number($(id).value); return Number.isFinite(v) ? v : 0; }

function optionsPath() {
  const parts = [];
  parts.push("rs:" + $("rt").value + ":" + Math.max(0, Math.round(number("w"))) + ":" + Math.max(0, Math.round(number("h"))) + ($("el").checked ? ":1" : ""));
  if ($("g").value) parts.push("g:" + $("g").value);
  if (number("cw") > 0 || number("ch") > 0) parts.push("c:" + Math.round(number("cw")) + ":" + Math.round(number("ch")));
  if ($("ex").checked) parts.push("ex:1");
  if (number("pd") > 0) parts.push("pd:" + Math.round(number("pd")));
  if (number("t") > 0) parts.push("t:" + Math.round(number("t")));
  if (number("dpr") !== 1 && number("dpr") > 0) parts.push("dpr:" + number("dpr"));
  if (number("q") > 0) parts.push("q:" + Math.round(number("q")));
  if (number("mb") > 0) parts.push("mb:" + Math.round(number("mb")));
  if (number("bl") > 0) parts.push("bl:" + number("bl"));
  if (number("sh") > 0) parts.push("sh:" + number("sh"));
  if (number("pix") > 0) parts.push("pix:" + Math.round(number("pix")));
  if (/^[0-9a-fA-F]{6}$/.test($("bg").value)) parts.push("bg:" + $("bg").value.toLowerCase());
  if ($("rot").value !== "0") parts.push("rot:" + $("rot").value);
  if ($("fl").value) parts.push("fl:" + $("fl").value);
  const extra = $("extra").value.trim().replace(/^\/+|\/+$/g, "");
  if (extra) parts.push(extra);
  return parts.join("/");
}

function currentSource() {
  return $("source").value.trim() || $("sample").value;
}

function colorSwatch(element, hex) {
  element.style.background = hex ? "#" + hex.replace(/^#/, "") : "transparent";
}

function parseServerTiming(header) {
  if (!header) return [];
  return header.split(",").map((item) => {
    const [name, ...params] = item.trim().split(";");
    const entry = { name: name.trim() };
    for (const param of params) {
      const [key, value] = param.trim().split("=");
      entry[key] = value;
    }
    return entry;
  });
}

async function updateResult() {
  const source = currentSource();
  const generation = ++state.generation;
  if (!source) { $("url").textContent = "pick a sample or paste a source URL"; return; }
  const format = $("f").value;
  const path = "/" + optionsPath() + "/plain/" + plainSource(source) + (format ? "@" + format : "");
  let url;
  try { url = await signed(path); } catch (error) { showResultError(error.message); return; }
  if (generation !== state.generation) return;
  $("url").textContent = url;
  const started = performance.now();
  let response;
  // Past the browser's cache, whose copy would carry the first answer's time and stages.
  try { response = await fetch(url, { cache: "no-store" }); } catch (error) { showResultError(error.message); return; }
  const blob = await response.blob();
  if (generation !== state.generation) return;
  const elapsed = performance.now() - started;
  if (!response.ok) {
    let message = response.status + "";
    try { const body = JSON.parse(await blob.text()); message += " " + body.kind + ": " + body.message; } catch (_) { /* not JSON */ }
    showResultError(message);
    return;
  }
  $("result-error").hidden = true;
  const image = $("result");
  const previous = image.src;
  image.onload = () => {
    if (generation !== state.generation) return;
    $("result-stats").textContent = image.naturalWidth + "×" + image.naturalHeight + " px · " + blob.size.toLocaleString("en") + " bytes · "
      + (response.headers.get("Content-Type") || "?") + " · " + elapsed.toFixed(0) + " ms";
    image.dataset.url = url;
    image.dataset.bytes = String(blob.size);
    if (previous.startsWith("blob:")) URL.revokeObjectURL(previous);
  };
  image.src = URL.createObjectURL(blob);
  const list = $("timing");
  list.replaceChildren(...parseServerTiming(response.headers.get("Server-Timing")).map((entry) => {
    const li = document.createElement("li");
    li.textContent = entry.name + (entry.dur !== undefined ? " " + entry.dur + " ms" : "") + (entry.desc ? " " + entry.desc : "");
    return li;
  }));
  if (state.infoSource !== source) updateInfo(source);
}

function showResultError(message) {
  $("result-error").textContent = message;
  $("result-error").hidden = false;
  $("result-stats").textContent = "";
}

async function updateInfo(source) {
  state.infoSource = source;
  const info = $("info");
  delete info.dataset.ready;
  let answer;
  try {
    const path = (await signed("/plain/" + plainSource(source))).slice(root.length - 1);
    const response = await fetch(root + "info" + path);
    answer = await response.json();
    if (!response.ok) throw new Error(answer.kind + ": " + answer.message);
  } catch (error) {
    $("info-summary").textContent = error.message;
    return;
  }
  if (state.infoSource !== source) return;
  $("info-summary").textContent = answer.format + " · " + answer.width + "×" + answer.height + " · " + answer.bytes.toLocaleString("en") + " bytes";
  colorSwatch($("dominant"), answer.dominantColor);
  $("dominant-hex").textContent = answer.dominantColor || "none";
  colorSwatch($("background"), answer.backgroundColor);
  $("background-hex").textContent = answer.backgroundColor || "none";
  $("palette").replaceChildren(...(answer.palette || []).map((hex) => {
    const swatch = document.createElement("span");
    colorSwatch(swatch, hex);
    swatch.title = hex;
    return swatch;
  }));
  $("blurhash-text").textContent = answer.blurhash;
  $("thumbhash-text").textContent = answer.thumbhash;
  try {
    const blur = P.decodeBlurHash(answer.blurhash, 32, Math.max(1, Math.round(32 * answer.height / answer.width)));
    P.paintPlaceholder($("blurhash"), blur);
    $("blurhash").dataset.average = blur.average.join(",");
    const thumb = P.decodeThumbHash(P.base64Bytes(answer.thumbhash));
    P.paintPlaceholder($("thumbhash"), thumb);
    $("thumbhash").dataset.average = thumb.average.join(",");
  } catch (error) {
    $("info-summary").textContent += " · placeholders: " + error.message;
    return;
  }
  info.dataset.ready = "true";
}

let debounce = 0;
function scheduleUpdate() {
  clearTimeout(debounce);
  debounce = setTimeout(updateResult, 200);
}

// The feed: one batch for every poster, cells in feed order with placeholders; each line
// colours its cell and paints its BlurHash, then the poster replaces it as it arrives.
async function startFeed() {
  if (state.feedStarted) return;
  state.feedStarted = true;
  const feed = $("feed");
  const posters = state.config.feed;
  if (!posters.length) { $("feed-status").textContent = "no feed here: start the server with --dev"; return; }
  const cells = posters.map((source, index) => {
    const cell = document.createElement("div");
    cell.className = "cell";
    cell.dataset.index = String(index);
    cell.dataset.state = "waiting";
    const canvas = document.createElement("canvas");
    canvas.width = 3; canvas.height = 2;
    const label = document.createElement("span");
    label.className = "label";
    label.textContent = "poster " + index;
    cell.append(canvas, label);
    feed.append(cell);
    return cell;
  });
  const options = "rs:fill:360:240";
  const body = JSON.stringify(posters.map((source) => ({ source, options })));
  const headers = { "Content-Type": "application/json" };
  if (state.config.signing === "key") headers["X-Signature"] = await signature(body);
  const response = await fetch(root + "batch", { method: "POST", body, headers });
  if (!response.ok || !response.body) { $("feed-status").textContent = "the batch failed: " + response.status; return; }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffered = "", dropped = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (value) buffered += decoder.decode(value, { stream: true });
    let newline;
    while ((newline = buffered.indexOf("\n")) >= 0) {
      const line = JSON.parse(buffered.slice(0, newline));
      buffered = buffered.slice(newline + 1);
      const cell = cells[line.index];
      if (!cell) continue;
      if (!line.ok) { cell.remove(); dropped += 1; continue; }
      showPoster(cell, line, posters[line.index], options).catch(() => { cell.dataset.state = "failed"; });
    }
    if (done) break;
  }
  $("feed-status").textContent = (posters.length - dropped) + " posters, " + dropped + " dropped (failed to load)";
  $("feed").dataset.done = "true";
}

async function showPoster(cell, line, source, options) {
  cell.dataset.state = "placeholder";
  if (line.backgroundColor) {
    colorSwatch(cell, line.backgroundColor);
    cell.dataset.background = line.backgroundColor.replace(/^#/, "");
  }
  const canvas = cell.querySelector("canvas");
  try { P.paintPlaceholder(canvas, P.decodeBlurHash(line.blurhash, 24, 16)); } catch (_) { /* the background colour stands in */ }
  const image = new Image();
  image.alt = "poster " + line.index;
  image.onload = () => { canvas.replaceWith(image); cell.dataset.state = "loaded"; };
  image.onerror = () => { cell.dataset.state = "failed"; };
  image.src = await signed("/" + options + "/plain/" + plainSource(source));
}

// The menu: every section asks for its own data at once and fills in when it arrives,
// whatever the others do; placeholders hold each section's place until then.
function startMenu() {
  if (state.menuStarted) return;
  state.menuStarted = true;
  const menu = $("menu");
  if (!state.config.menu.length) { menu.textContent = "no menu here: start the server with --dev"; return; }
  for (const { name, count } of state.config.menu) {
    const section = document.createElement("div");
    section.className = "section";
    section.id = "section-" + name;
    section.dataset.state = "loading";
    const title = document.createElement("h2");
    title.textContent = name;
    section.append(title);
    for (let i = 0; i < count; i++) {
      const item = document.createElement("div");
      item.className = "item placeholder";
      const thumb = document.createElement("div"); thumb.className = "thumb";
      const text = document.createElement("div"); text.className = "text";
      item.append(thumb, text);
      section.append(item);
    }
    menu.append(section);
    loadSection(section, name);
  }
}

async function loadSection(section, name) {
  const started = performance.now();
  try {
    const response = await fetch(root + "playground/menu/" + encodeURIComponent(name));
    const answer = await response.json();
    if (!response.ok) throw new Error(answer.message || String(response.status));
    const items = await Promise.all(answer.items.map(async (source) => {
      const item = document.createElement("div");
      item.className = "item";
      const image = document.createElement("img");
      image.alt = source.split("/").pop().replace(/\.[a-z]+$/, "");
      image.src = await signed("/rs:fill:128:128/plain/" + plainSource(source));
      const text = document.createElement("span");
      text.textContent = image.alt;
      item.append(image, text);
      return item;
    }));
    section.querySelectorAll(".item").forEach((item) => item.remove());
    section.append(...items);
    section.dataset.state = "loaded";
  } catch (error) {
    section.querySelectorAll(".item").forEach((item) => item.remove());
    const message = document.createElement("p");
    message.className = "error";
    message.textContent = "could not load: " + error.message;
    section.append(message);
    section.dataset.state = "failed";
  }
  const time = document.createElement("p");
  time.className = "note";
  time.textContent = "answered after " + (performance.now() - started).toFixed(0) + " ms";
  section.append(time);
}

function showView() {
  const view = (location.hash || "#playground").slice(1);
  const known = ["playground", "feed", "menu"].includes(view) ? view : "playground";
  for (const name of ["playground", "feed", "menu"]) {
    $("view-" + name).hidden = name !== known;
    $("nav-" + name).classList.toggle("current", name === known);
  }
  if (known === "feed") startFeed().catch((error) => { $("feed-status").textContent = "the feed failed: " + error.message; });
  if (known === "menu") startMenu();
}

async function start() {
  const response = await fetch(root + "playground/config.json");
  state.config = await response.json();
  $("signing").textContent = { key: "URLs signed by this server's key", unsigned: "unsigned URLs", none: "this server serves no unsigned URLs and has no key" }[state.config.signing];
  const sample = $("sample");
  sample.replaceChildren(...state.config.photos.map((url) => {
    const option = document.createElement("option");
    option.value = url;
    option.textContent = url.split("/").pop();
    return option;
  }));
  $("controls").addEventListener("input", scheduleUpdate);
  $("controls").addEventListener("change", scheduleUpdate);
  $("controls").addEventListener("submit", (event) => event.preventDefault());
  window.addEventListener("hashchange", showView);
  showView();
  updateResult();
}

start().catch((error) => { $("url").textContent = "the playground could not start: " + error.message; });
