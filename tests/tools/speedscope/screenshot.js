// Renders a speedscope profile in speedscope's own web app (the build shipped in
// the npm package, node_modules/speedscope/dist/release) with headless Chromium,
// and writes a screenshot. Nothing leaves the machine: the app and the profile are
// served from 127.0.0.1 by node's http module, and every other request is aborted.
// Playwright-core drives an installed Chromium (default /usr/bin/chromium, or
// $CHROMIUM); it never downloads a browser.
//
// The render counts as done when speedscope has imported the profile (it sets the
// page title to "<file name> - speedscope"), the toolbar names the active profile,
// and the flame graph's canvas is laid out; after a short settle the screenshot
// must show the coloured rectangles of a flame graph (enough saturated pixels below
// the toolbar). It fails on a page error, an alert (speedscope alerts "Unrecognized
// format" and "it's empty"), speedscope's "Something went wrong" or a timeout.
// Usage: node screenshot.js [--modules DIR] [--view time-ordered|left-heavy|sandwich] PROFILE.json OUT.png
// Exit 0 when rendered, 1 when not, 2 on bad usage.
"use strict";
const fs = require("fs");
const http = require("http");
const path = require("path");

let args = process.argv.slice(2);
let modules = path.join(__dirname, "node_modules");
let view = "";
if (args[0] === "--modules") {
  modules = path.resolve(args[1]);
  args = args.slice(2);
}
if (args[0] === "--view") {
  view = args[1];
  args = args.slice(2);
}
if (args.length !== 2) {
  console.error("usage: node screenshot.js [--modules DIR] [--view time-ordered|left-heavy|sandwich] PROFILE.json OUT.png");
  process.exit(2);
}
const [profilePath, outPath] = args;
const { chromium } = require(path.join(modules, "playwright-core"));
const appDir = path.join(modules, "speedscope", "dist", "release");
const executablePath = process.env.CHROMIUM || "/usr/bin/chromium";
const timeoutMs = 30000;

const types = {
  ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".json": "application/json",
  ".wasm": "application/wasm", ".png": "image/png", ".ico": "image/x-icon", ".woff2": "font/woff2",
  ".txt": "text/plain",
};
const profileName = path.basename(profilePath);
// The active profile's name, which speedscope's toolbar shows (none if the file is not a speedscope file).
let active;
try {
  const profile = JSON.parse(fs.readFileSync(profilePath, "utf8"));
  active = (profile.profiles || [])[profile.activeProfileIndex || 0];
} catch (e) {
  active = undefined;
}

function serve(req, res) {
  const url = decodeURIComponent(new URL(req.url, "http://127.0.0.1").pathname);
  let file = null;
  if (url === "/profile/" + profileName) file = profilePath;
  else {
    const rel = url === "/" ? "index.html" : url.slice(1);
    const candidate = path.join(appDir, rel);
    if (candidate.startsWith(appDir + path.sep)) file = candidate;
  }
  fs.readFile(file || "/nonexistent", (err, data) => {
    if (err) {
      res.writeHead(404);
      res.end();
      return;
    }
    res.writeHead(200, { "Content-Type": types[path.extname(file)] || "application/octet-stream" });
    res.end(data);
  });
}

async function main() {
  const server = http.createServer(serve);
  await new Promise(resolve => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${server.address().port}`;
  const problems = [];
  let browser;
  try {
    browser = await chromium.launch({
      executablePath,
      headless: true,
      // WebGL (speedscope draws with it) on the CPU: no GPU in CI.
      args: ["--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--ignore-gpu-blocklist"],
    });
    const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    await page.route("**/*", route =>
      route.request().url().startsWith(origin + "/") ? route.continue() : route.abort());
    page.on("pageerror", e => problems.push(`page error: ${e.message}`));
    page.on("console", m => { if (m.type() === "error") problems.push(`console error: ${m.text()}`); });
    page.on("dialog", d => { problems.push(`alert: ${d.message()}`); d.dismiss().catch(() => {}); });
    page.on("requestfailed", r => {
      if (r.url().startsWith(origin + "/")) problems.push(`request failed: ${r.url()} ${r.failure().errorText}`);
    });

    const profileURL = `${origin}/profile/${encodeURIComponent(profileName)}`;
    await page.goto(`${origin}/index.html#profileURL=${encodeURIComponent(profileURL)}` +
                    (view ? `&view=${encodeURIComponent(view)}` : ""));
    const state = () => page.evaluate(() => ({
      title: document.title,
      text: document.body ? document.body.innerText : "",
      canvases: [...document.querySelectorAll("canvas")].map(c => [c.clientWidth, c.clientHeight]),
    }));
    const deadline = Date.now() + timeoutMs;
    let s;
    for (;;) {
      s = await state();
      const imported = / - speedscope$/.test(s.title);
      const named = !active || s.text.includes(active.name);
      const canvas = s.canvases.some(([w, h]) => w > 100 && h > 100);
      if (s.text.includes("Something went wrong")) problems.push("speedscope: Something went wrong");
      if (problems.length || (imported && named && canvas)) break;
      if (Date.now() > deadline) {
        problems.push(`timed out after ${timeoutMs / 1000} s: title ${JSON.stringify(s.title)}, ` +
                      `profile name ${active ? JSON.stringify(active.name) : "(none)"} ${named ? "shown" : "not shown"}, ` +
                      `canvases ${JSON.stringify(s.canvases)}`);
        break;
      }
      await page.waitForTimeout(100);
    }
    if (!problems.length) {
      await page.waitForTimeout(750); // the flame graph draws on the next animation frames
      await page.screenshot({ path: outPath });
      // Count the saturated pixels below the toolbar: the flame graph's rectangles are
      // coloured; speedscope's chrome is greys, and an empty graph is white.
      const png = fs.readFileSync(outPath).toString("base64");
      const coloured = await page.evaluate(async data => {
        const img = new Image();
        img.src = "data:image/png;base64," + data;
        await img.decode();
        const c = document.createElement("canvas");
        c.width = img.width;
        c.height = img.height;
        const g = c.getContext("2d");
        g.drawImage(img, 0, 0);
        const top = 40;
        const px = g.getImageData(0, top, c.width, c.height - top).data;
        let n = 0;
        for (let i = 0; i < px.length; i += 4) {
          const max = Math.max(px[i], px[i + 1], px[i + 2]), min = Math.min(px[i], px[i + 1], px[i + 2]);
          if (max - min > 40) ++n;
        }
        return n / (px.length / 4);
      }, png);
      console.log(`${profilePath}: rendered by speedscope (title ${JSON.stringify(s.title)}); ` +
                  `${(coloured * 100).toFixed(1)}% of the graph area coloured; screenshot ${outPath}`);
      if (coloured < 0.005) problems.push("the screenshot shows no flame graph (under 0.5% of the area below the toolbar is coloured)");
    }
  } catch (e) {
    problems.push(`${e.message}`);
  } finally {
    if (browser) await browser.close();
    server.close();
  }
  if (problems.length) {
    console.log(`${profilePath}: NOT RENDERED`);
    for (const p of problems) console.log(`  ${p}`);
    process.exit(1);
  }
}
main();
