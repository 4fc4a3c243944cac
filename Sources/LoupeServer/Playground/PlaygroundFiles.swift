/// The playground page's files, shipped inside the binary as text (no build step): served by
/// ``ServiceResponder`` at `/` and under `/playground/` when ``ImageRoutes/Endpoints/playground``
/// is on. The page runs only these scripts (its Content-Security-Policy allows nothing inline
/// and nothing from elsewhere) and talks to this origin only.
enum PlaygroundFiles {
    /// The page: three views (playground, feed, menu) whose scripts and styles are the files below.
    static let html = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Loupe playground</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="playground/style.css">
<script src="playground/placeholders.js" defer></script>
<script src="playground/app.js" defer></script>
</head>
<body>
<header>
  <h1>Loupe</h1>
  <nav>
    <a href="#playground" id="nav-playground">Playground</a>
    <a href="#feed" id="nav-feed">Feed</a>
    <a href="#menu" id="nav-menu">Menu</a>
  </nav>
  <span id="signing"></span>
</header>

<main>
<section id="view-playground" class="view">
  <form id="controls" autocomplete="off">
    <fieldset>
      <legend>Source</legend>
      <select id="sample" aria-label="sample photo"></select>
      <input id="source" type="url" placeholder="or paste a source URL (http://…)" aria-label="source URL">
    </fieldset>
    <fieldset>
      <legend>Resize</legend>
      <label>type <select id="rt"><option>fit</option><option>fill</option><option>fill-down</option><option>force</option><option>auto</option></select></label>
      <label>width <input id="w" type="number" min="0" max="2000" value="300"></label>
      <label>height <input id="h" type="number" min="0" max="2000" value="200"></label>
      <label>dpr <input id="dpr" type="number" min="1" max="4" step="0.5" value="1"></label>
      <label>enlarge <input id="el" type="checkbox"></label>
      <label>gravity <select id="g"><option value="">—</option><option>ce</option><option>no</option><option>so</option><option>ea</option><option>we</option><option>nowe</option><option>noea</option><option>sowe</option><option>soea</option><option>sm</option></select></label>
      <label>crop w×h <input id="cw" type="number" min="0" max="4000" value="0"><input id="ch" type="number" min="0" max="4000" value="0"></label>
      <label>extend <input id="ex" type="checkbox"></label>
      <label>padding <input id="pd" type="number" min="0" max="500" value="0"></label>
      <label>trim <input id="t" type="number" min="0" max="255" value="0"></label>
    </fieldset>
    <fieldset>
      <legend>Output</legend>
      <label>format <select id="f"><option value="">auto</option><option>jpg</option><option>png</option><option>webp</option><option>avif</option></select></label>
      <label>quality <input id="q" type="number" min="0" max="100" value="0"></label>
      <label>max bytes <input id="mb" type="number" min="0" max="10000000" step="1000" value="0"></label>
    </fieldset>
    <fieldset>
      <legend>Effects</legend>
      <label>blur <input id="bl" type="number" min="0" max="50" step="0.5" value="0"></label>
      <label>sharpen <input id="sh" type="number" min="0" max="10" step="0.1" value="0"></label>
      <label>pixelate <input id="pix" type="number" min="0" max="100" value="0"></label>
      <label>background <input id="bg" type="text" placeholder="ffffff" maxlength="6"></label>
      <label>rotate <select id="rot"><option>0</option><option>90</option><option>180</option><option>270</option></select></label>
      <label>flip <select id="fl"><option value="">—</option><option value="1:0">horizontal</option><option value="0:1">vertical</option><option value="1:1">both</option></select></label>
      <label>extra <input id="extra" type="text" placeholder="e.g. mw:200/z:1.5"></label>
    </fieldset>
  </form>
  <p class="url"><code id="url"></code></p>
  <div class="stage">
    <figure>
      <div class="frame"><img id="result" alt="result"></div>
      <figcaption id="result-stats">…</figcaption>
      <ol id="timing"></ol>
      <p id="result-error" class="error" hidden></p>
    </figure>
    <aside id="info">
      <h2>Source</h2>
      <p id="info-summary">…</p>
      <div class="colors">
        <div><span id="dominant" class="swatch"></span> dominant <code id="dominant-hex"></code></div>
        <div><span id="background" class="swatch"></span> background <code id="background-hex"></code></div>
      </div>
      <div id="palette" class="palette"></div>
      <div class="hashes">
        <figure><canvas id="blurhash" width="32" height="32"></canvas><figcaption>BlurHash <code id="blurhash-text"></code></figcaption></figure>
        <figure><canvas id="thumbhash" width="32" height="32"></canvas><figcaption>ThumbHash <code id="thumbhash-text"></code></figcaption></figure>
      </div>
    </aside>
  </div>
</section>

<section id="view-feed" class="view" hidden>
  <p class="note">The poster feed through one <code>POST /batch</code>: each cell takes its background from its poster's dominant colour, lines arrive in feed order, failed posters are dropped.</p>
  <p id="feed-status"></p>
  <div id="feed" class="feed"></div>
</section>

<section id="view-menu" class="view" hidden>
  <p class="note">Three sections, each from its own request with its own latency; each shows placeholders until its own data arrives.</p>
  <div id="menu" class="menu"></div>
</section>
</main>
</body>
</html>
"""#
}
