// Drives Neo4j Browser in a real headless Chromium (/usr/bin/chromium, through playwright-core)
// for tests/integration/test_browser.py: connect over Bolt, apply GUMem's style sheet, open
// GUMem's guide, run the guide's "Why does the agent remember this?" query for one summary,
// screenshot the graph and report what was rendered as one JSON line on stdout.
//
//   node tests/browser/run.mjs '<json config>'
//
// config: browserUrl, boltUrl, user, password, styleUrl and guideUrl (run as :style / :play;
// styleUrl null: rely on the server's browser.post_connect_cmd and pass the style sheet's
// text as grass), summaryId, screenshot, userDataDir (fresh profile), executablePath
// (default /usr/bin/chromium), timeoutMs (default 60000). Progress goes to stderr.
// Labels are told apart by the fill colours the style sheet gives them.

import { chromium } from "playwright-core";

const FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

const cfg = JSON.parse(process.argv[2] ?? "{}");
const timeout = cfg.timeoutMs ?? 60000;
const log = (...a) => console.error("[run.mjs]", ...a);

// node.<Label> { ... color: #xxxxxx ... } of the style sheet: fill colour -> label
function labelColours(grass) {
  const out = {};
  for (const m of grass.matchAll(/node\.(\w+)\s*\{([^}]*)\}/g)) {
    const c = m[2].match(/(?:^|[\s;{])color:\s*(#[0-9A-Fa-f]{6})/);
    if (c) out[c[1].toLowerCase()] = m[1];
  }
  return out;
}

async function editorRun(page, text) {
  const editor = page.locator('[data-testid="activeEditor"]');
  await editor.click();
  await page.keyboard.press("Control+A");
  await page.keyboard.press("Delete");
  await page.keyboard.insertText(text);
  await page.keyboard.press("Escape"); // close an autocomplete popup, if any
  await page.locator('[data-testid="editor-Run"]').click();
}

// until the force layout and zoom stop moving (node transforms unchanged for a second)
async function settle(page, frame) {
  let last = "";
  let same = 0;
  for (let i = 0; i < 60 && same < 2; i++) {
    await page.waitForTimeout(500);
    const now = await frame.evaluate((el) =>
      Array.from(el.querySelectorAll("svg g.node, svg g.layer, svg > g"))
        .map((g) => g.getAttribute("transform"))
        .join("|"),
    );
    same = now === last ? same + 1 : 0;
    last = now;
  }
}

async function frameCount(page) {
  return page.locator('[data-testid="frame"]').count();
}

async function runAndWait(page, text) {
  const before = await frameCount(page);
  await editorRun(page, text);
  await page.waitForFunction(
    (n) => document.querySelectorAll('[data-testid="frame"]').length > n,
    before,
    { timeout },
  );
  // newest frame first
  const frame = page.locator('[data-testid="frame"]').first();
  return frame;
}

async function frameError(frame) {
  const err = frame.locator('[data-testid="cypherFrameErrorMessage"], .error, [class*="Error"]');
  if ((await err.count()) === 0) return null;
  const text = (await frame.innerText()).trim();
  return /error|not allowed|could not/i.test(text) ? text.slice(0, 500) : null;
}

async function main() {
  const result = { ok: false, errors: [] };
  const grass = cfg.styleUrl
    ? await (await fetch(cfg.styleUrl)).text()
    : cfg.grass ?? "";
  const colours = labelColours(grass);
  const ctx = await chromium.launchPersistentContext(cfg.userDataDir, {
    executablePath: cfg.executablePath ?? "/usr/bin/chromium",
    headless: true,
    args: FLAGS,
    viewport: { width: 1920, height: 1080 }, // wide: zoom-to-fit ignores the overview panel
    deviceScaleFactor: 1,
  });
  const consoleErrors = [];
  try {
    const page = ctx.pages()[0] ?? (await ctx.newPage());
    page.setDefaultTimeout(timeout);
    page.on("console", (m) => {
      if (m.type() === "error") consoleErrors.push(m.text().slice(0, 300));
    });
    log("open", cfg.browserUrl);
    await page.goto(cfg.browserUrl, { waitUntil: "domcontentloaded" });

    // connect form
    const address = page.locator('[data-testid="boltaddress"]');
    await address.waitFor({ timeout });
    const scheme = page.locator('[data-testid="bolt-scheme-select"]');
    const url = new URL(cfg.boltUrl);
    if ((await scheme.count()) > 0) {
      await scheme.selectOption(`${url.protocol}//`);
      await address.fill(url.host);
    } else {
      await address.fill(cfg.boltUrl);
    }
    await page.locator('[data-testid="username"]').fill(cfg.user);
    await page.locator('[data-testid="password"]').fill(cfg.password);
    await page.locator('[data-testid="connect"]').click();
    await page.getByText(/You are connected as user/).first().waitFor({ timeout });
    log("connected");

    if (cfg.styleUrl) {
      const frame = await runAndWait(page, `:style ${cfg.styleUrl}`);
      await page.waitForTimeout(500);
      const err = await frameError(frame);
      if (err) result.errors.push(`:style: ${err}`);
      log("style applied");
      if (cfg.guideUrl) await runAndWait(page, `:play ${cfg.guideUrl}`);
    }

    // the guide (opened by :play here or by post_connect_cmd) in its frame
    const intro = page.locator('[data-testid="frame"] h3', { hasText: "GUMem provenance" });
    await intro.first().waitFor({ timeout });
    await intro.first().evaluate((h) =>
      h.closest('[data-testid="frame"]').setAttribute("data-gumem-guide", "1"),
    );
    const guide = page.locator('[data-gumem-guide="1"]');
    result.guideSlides = [];
    for (let i = 0; i < 12; i++) {
      const title = (await guide.locator("h3").first().innerText()).trim();
      result.guideSlides.push(title);
      if (/Why does the agent remember this/.test(title)) break;
      const next = guide.locator('[data-testid="nextSlide"]');
      if ((await next.count()) === 0) break;
      await next.first().click();
      await page.waitForTimeout(300);
    }
    log("guide slides", result.guideSlides);

    // the parameter, typed; then the guide's own query, clicked in the guide
    const paramFrame = await runAndWait(page, `:param id => '${cfg.summaryId}'`);
    await page.waitForTimeout(300);
    const perr = await frameError(paramFrame);
    if (perr) result.errors.push(`:param: ${perr}`);
    const block = guide.locator("pre#why-query");
    await block.waitFor({ timeout });
    result.query = (await block.textContent()).trim();
    const before = await frameCount(page);
    await block.click();
    await page.waitForTimeout(300);
    await page.locator('[data-testid="editor-Run"]').click();
    await page.waitForFunction(
      (n) => document.querySelectorAll('[data-testid="frame"]').length > n,
      before,
      { timeout },
    );
    const frame = page.locator('[data-testid="frame"]').first();
    result.frameCommand = (await frame.locator('[data-testid="frameCommand"]').first().innerText())
      .trim();

    // the graph: wait until nodes are drawn and the layout has settled
    await frame.locator("svg g.node").first().waitFor({ timeout });
    await settle(page, frame);

    const nodes = await frame.evaluate((el) =>
      Array.from(el.querySelectorAll("svg g.node")).map((g) => {
        const circle = g.querySelector("circle.b-outline") ?? g.querySelector("circle");
        return {
          fill: (circle?.getAttribute("fill") ?? "").toLowerCase(),
          caption: Array.from(g.querySelectorAll("text.caption, text"))
            .map((t) => t.textContent)
            .filter((t) => t && t.trim())
            .join(" ")
            .trim(),
        };
      }),
    );
    const rels = await frame.evaluate((el) =>
      Array.from(el.querySelectorAll("svg g.relationship")).map((g) =>
        Array.from(g.querySelectorAll("text")).map((t) => t.textContent).join(" ").trim(),
      ),
    );
    result.nodeCount = nodes.length;
    result.relationshipCount = rels.length;
    result.relationshipCaptions = {};
    for (const r of rels) result.relationshipCaptions[r] = (result.relationshipCaptions[r] ?? 0) + 1;
    result.byLabel = {};
    result.captions = {};
    for (const n of nodes) {
      const label = colours[n.fill] ?? `unstyled(${n.fill})`;
      result.byLabel[label] = (result.byLabel[label] ?? 0) + 1;
      (result.captions[label] ??= []).push(n.caption);
    }
    result.overview = await frame.evaluate((el) =>
      Array.from(el.querySelectorAll('[data-testid^="property-details-overview-node-label-"]')).map(
        (e) => e.textContent.trim(),
      ),
    );
    // a readable picture: the result frame full screen, the graph zoomed to fit
    await frame.locator('button[title="Fullscreen"]').first().click();
    await settle(page, frame);
    const fit = frame.locator('[aria-label="zoom-to-fit"]');
    if ((await fit.count()) > 0) {
      await fit.first().click();
      await settle(page, frame);
    }
    await page.screenshot({ path: cfg.screenshot });
    log("screenshot", cfg.screenshot);
    result.ok = true;
  } catch (e) {
    result.errors.push(String(e?.stack ?? e).slice(0, 2000));
    try {
      const page = ctx.pages()[0];
      if (page && cfg.screenshot) await page.screenshot({ path: cfg.screenshot.replace(/\.png$/, "-failed.png") });
    } catch {}
  } finally {
    result.consoleErrors = consoleErrors.slice(0, 20);
    await ctx.close();
  }
  process.stdout.write(JSON.stringify(result) + "\n");
  process.exit(result.ok ? 0 : 1);
}

main();
