// Issue 29, the operator console in a real browser: Debian's Chromium (playwright-core) against `npm start`'s
// app. Each view loads with the running gateway's data and passes axe-core's WCAG 2.x A/AA rules; the
// playground ranks as POST /v1/find does; a REST call shows in the calls view, a miss in the misses view,
// a stopped upstream in red on the health view; no key or a non-admin key is refused on the page; registry
// and caller strings render as text under a strict CSP. Screenshots of every view land in screenshots/.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONSOLE_CSP } from "../../lambdas/console/routes.js";
import {
  axeViolations,
  type ConsoleGateway,
  HTML_DESCRIPTION,
  KEYS,
  launchBrowser,
  openConsole,
  READER,
  screenshot,
  startConsoleGateway,
  type TestBrowser,
  watchPage,
} from "./fixture.js";

let gateway: ConsoleGateway;
let browser: TestBrowser;
let page: Page;
let problems: string[];
let sessionId: string;
/** axe-core's findings per view, reported together at the end. */
const axe = new Map<string, unknown[]>();
const SCRIPT_QUERY = "<script>zqxv()</script> wombat";

// biome-ignore lint/suspicious/noExplicitAny: answers are read field by field
const json = async (res: Response): Promise<any> => {
  const text = await res.text();
  expect(res.ok, `${res.status} ${res.url}: ${text}`).toBe(true);
  return JSON.parse(text);
};

async function view(name: string): Promise<void> {
  await page.getByRole("navigation", { name: "Views" }).getByRole("link", { name, exact: true }).click();
  await expect.poll(() => page.locator("main h2").textContent()).toBe(name);
}

/** axe over the view as it stands, and a screenshot of it. */
async function record(name: string): Promise<void> {
  axe.set(name, await axeViolations(page));
  await screenshot(page, name);
}

beforeAll(async () => {
  [gateway, browser] = await Promise.all([startConsoleGateway(), launchBrowser()]);
  page = await browser.context.newPage();
  problems = watchPage(page);
  // What the views show: a session with a pinned tool, a REST call that worked and one that failed,
  // a find that missed (its query holds a script tag) and a tool name that was no tool.
  sessionId = (await json(await gateway.request("/v1/sessions", { body: { brief: "notes-desk" } }))).session.id;
  await json(await gateway.request("/v1/call", { body: { tool: "time.now", args: {}, session: sessionId } }));
  await json(await gateway.request("/v1/call", { body: { tool: "notes.create", args: { title: "from the console test" } } }));
  expect((await gateway.request("/v1/call", { body: { tool: "convert.temperature", args: { value: 1, from: "C", to: "X" } } })).ok).toBe(false);
  expect((await gateway.request("/v1/call", { body: { tool: "notes.ad_it", args: {} } })).ok).toBe(false);
  const missed = await json(await gateway.request("/v1/find", { body: { query: SCRIPT_QUERY, mode: "keyword" } }));
  expect(missed.tools[0]?.score ?? 0).toBeLessThan(0.3);
});

afterAll(async () => {
  await browser?.close();
  await gateway?.close();
});

describe("serving and refusals", () => {
  it("axe-core, as these tests inject it, reports what it should: an unlabelled field and text below AA contrast", async () => {
    const p = await browser.context.newPage();
    await p.setContent('<html lang="en"><head><title>t</title></head><body><main><input type="text"><p style="color:#aaa">faint</p></main></body></html>');
    expect((await axeViolations(p)).map((v) => v.id).sort()).toEqual(["color-contrast", "label"]);
    await p.close();
  });

  it("serves the shell with a strict CSP, its assets immutable, and the data routes answer 401 without a key and 403 to a non-admin", async () => {
    const shell = await gateway.request("/console", { as: null });
    expect(shell.status).toBe(200);
    expect(
      Object.fromEntries(["content-security-policy", "x-content-type-options", "referrer-policy", "cache-control"].map((h) => [h, shell.headers.get(h)])),
    ).toEqual({
      "content-security-policy": CONSOLE_CSP,
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
      "cache-control": "no-store",
    });
    expect(CONSOLE_CSP).toContain("script-src 'self'");
    const html = await shell.text();
    const assets = [...html.matchAll(/(?:src|href)="(console\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets).toHaveLength(2);
    for (const a of assets) {
      const res = await gateway.request(`/${a}`, { as: null });
      expect([res.status, res.headers.get("cache-control"), res.headers.get("content-security-policy")]).toEqual([
        200,
        "public, max-age=31536000, immutable",
        CONSOLE_CSP,
      ]);
    }
    expect((await gateway.request("/console/assets/app.missing.js", { as: null })).status).toBe(404);
    // With a trailing slash the shell's relative addresses would miss: it sends the browser to /console.
    const slash = await fetch(`${gateway.url}/console/`, { redirect: "manual" });
    expect([slash.status, new URL(slash.headers.get("location")!, `${gateway.url}/console/`).pathname]).toEqual([308, "/console"]);
    for (const path of ["/v1/admin/catalog", "/v1/admin/audit", "/v1/admin/audit/stats", `/v1/admin/sessions/${sessionId}`, "/v1/admin/misses"]) {
      expect([path, (await gateway.request(path, { as: null })).status]).toEqual([path, 401]);
      expect([path, (await gateway.request(path, { as: "reader" })).status]).toEqual([path, 403]);
    }
    expect((await gateway.request("/v1/admin/find", { as: "reader", body: { query: "time" } })).status).toBe(403);
  });

  it("asks for a key, and shows 401 for no key or an unknown one and 403 for a non-admin key", async () => {
    const p = await browser.context.newPage();
    const seen = watchPage(p);
    await p.goto(`${gateway.url}/console`);
    await expect.poll(() => p.getByLabel("Admin API key").isVisible()).toBe(true);
    axe.set("key prompt", await axeViolations(p));
    for (const [key, status] of [
      ["", "401"],
      ["not-a-key-of-this-gateway", "401"],
      [KEYS.reader, "403"],
    ] as const) {
      await p.getByLabel("Admin API key").fill(key);
      await p.getByRole("button", { name: "Open the console" }).click();
      const alert = p.getByRole("alert");
      await expect.poll(() => alert.getAttribute("data-status")).toBe(status);
      expect(await alert.textContent()).toContain(status === "401" ? "refused the key (401)" : "not an admin's (403)");
    }
    await screenshot(p, "refused");
    // The key is nowhere but in the page's memory.
    expect(await p.evaluate(() => [document.cookie, localStorage.length, sessionStorage.length])).toEqual(["", 0, 0]);
    expect(seen).toEqual([]);
    await p.close();
  });

  it("works from the keyboard: the key prompt, then the navigation, without a mouse", async () => {
    const p = await browser.context.newPage();
    await p.goto(`${gateway.url}/console`);
    await p.getByLabel("Admin API key").waitFor();
    await p.keyboard.press("Tab");
    expect(await p.evaluate(() => document.activeElement?.id)).toBe("api-key");
    await p.keyboard.type(KEYS.admin);
    await p.keyboard.press("Enter");
    await p.getByRole("heading", { level: 2, name: "Catalog" }).waitFor();
    const focused: string[] = [];
    for (let i = 0; i < 7; i++) {
      await p.keyboard.press("Tab");
      focused.push(await p.evaluate(() => document.activeElement?.textContent ?? ""));
    }
    expect(focused).toEqual(["Skip to the view", "Catalog", "Find playground", "Sessions", "Calls", "Misses", "Health"]);
    await p.keyboard.press("Enter");
    await p.getByRole("heading", { level: 2, name: "Health" }).waitFor();
    // The new view has the focus: the next Tab reaches its first control.
    expect(await p.evaluate(() => document.activeElement?.id)).toBe("main");
    await p.keyboard.press("Tab");
    expect(await p.evaluate(() => document.activeElement?.textContent)).toBe("Check again");
    await p.close();
  });
});

describe("views", () => {
  beforeAll(async () => {
    await openConsole(page, gateway);
    await page.getByRole("heading", { level: 2, name: "Catalog" }).waitFor();
  });

  // Health goes first: the gateway keeps one round of probes for HEALTH_CACHE_SECS (fixture.ts) whoever asks (on its own
  // clock, which a test cannot move), so the upstream is stopped now and the last test sees it red.
  it("health: every check shown, the table and upstreams up, the unconfigured model role down", async () => {
    await view("Health");
    const everything = page.locator('tr[data-check^="upstream"][data-name="everything"]');
    await expect.poll(() => everything.getAttribute("data-ok")).toBe("true");
    expect(await page.locator('tr[data-check="table"]').getAttribute("data-ok")).toBe("true");
    expect(await page.locator('tr[data-check^="upstream"][data-name="notes"]').getAttribute("data-ok")).toBe("true");
    // The example's writing tools ask model role `prompt`, which this gateway has no model for: degraded, and why.
    expect(await page.locator('tr[data-check^="model"][data-name="prompt"]').getAttribute("data-ok")).toBe("false");
    expect(await page.locator("p[data-status]").getAttribute("data-status")).toBe("degraded");
    expect(await page.locator("p[data-status]").textContent()).toContain("model prompt");
    await record("health");
    await gateway.mcpUpstream.stop();
    await view("Catalog");
  });

  it("catalog: families and tools with callable, governance, settings and who reaches them; search by name", async () => {
    const row = page.locator('tr[data-tool="notes.create"]');
    await expect.poll(() => row.count()).toBe(1);
    const text = (await row.textContent()) ?? "";
    expect(text).toContain("operator");
    expect(text).toContain("notes-desk");
    expect(text).toContain("yes");
    expect(await page.locator("section.family").count()).toBe(gateway.artifact.families.length);
    expect(await page.locator("tbody tr[data-tool]").count()).toBe(gateway.artifact.tools.length);
    // The reader reaches time tools; the settings of the demo families are present.
    expect(await page.locator('tr[data-tool="time.now"]').textContent()).toContain(READER.id);
    expect(await page.locator("span.setting").first().textContent()).toMatch(/: present$/);
    await record("catalog");
    await page.getByLabel("Search tools by name").fill("notes.");
    await expect.poll(() => page.locator("tbody tr[data-tool]").count()).toBe(gateway.artifact.tools.filter((t) => t.name.includes("notes.")).length);
    await page.getByLabel("Search tools by name").fill("");
  });

  it("registry and caller strings render as text: a description with HTML, a family description and a query with a script tag", async () => {
    const row = page.locator('tr[data-tool="markup.preview"]');
    await expect.poll(() => row.locator("td.desc").textContent()).toBe(HTML_DESCRIPTION);
    expect(await row.locator("img, b").count()).toBe(0);
    expect(await page.locator("section.family").filter({ hasText: "Markup previews" }).locator("p").first().textContent()).toContain("<script>");
    await expect.poll(async () => (await json(await gateway.request("/v1/admin/misses?kind=find"))).misses.length, { timeout: 10_000 }).toBeGreaterThan(0);
    await view("Misses");
    const miss = page.locator('[data-misses="find"] tr[data-miss]').filter({ hasText: "<script>" });
    await expect.poll(() => miss.count()).toBe(1);
    expect(await miss.locator("th").textContent()).toBe(SCRIPT_QUERY.toLowerCase());
    // Only the console's own script is on the page, and nothing a string carried has run.
    expect(await page.evaluate(() => [document.scripts.length, (window as unknown as { __injected?: number }).__injected])).toEqual([1, undefined]);
  });

  it("find playground: the ranking, scores and reasons equal POST /v1/find's for the same principal; two requests side by side", async () => {
    await view("Find playground");
    const query = "convert celsius to fahrenheit";
    const direct = await json(await gateway.request("/v1/find", { as: "reader", body: { query, explain: true } }));
    expect(direct.tools.length).toBeGreaterThan(1);
    const a = page.locator('[data-pane="A"]');
    await a.getByLabel("Principal").fill(READER.id);
    await a.getByLabel("Query").fill(query);
    await a.getByRole("button", { name: "Find" }).click();
    await expect.poll(() => a.locator("ol.ranking > li").count()).toBe(direct.tools.length);
    const shown = await a
      .locator("ol.ranking > li")
      .evaluateAll((items) => items.map((li) => [li.getAttribute("data-tool"), li.querySelector(".score")?.textContent]));
    expect(shown).toEqual(direct.tools.map((t: { name: string; score: number }) => [t.name, t.score.toFixed(3)]));
    expect(await a.locator("[data-verdict]").textContent()).toBe(direct.verdict);
    expect(await a.locator("ol.ranking > li").first().locator("ul.reasons").textContent()).toContain("celsius");
    // The verdict's reasons, and each tool's score after each stage (regression: the page read fields find never gives).
    const reasons = await a
      .locator('table.rows:has(caption:text("Why this verdict")) tbody tr')
      .evaluateAll((rows) => rows.map((r) => r.children[1]!.textContent));
    expect(reasons).toEqual(direct.verdict_reasons.map((r: { rule: string }) => r.rule));
    expect(await a.locator("ol.ranking > li").first().locator("[data-stages]").textContent()).toContain("retrieve");
    // B: the admin's own grants in one family, beside A.
    const b = page.locator('[data-pane="B"]');
    await b.getByLabel("Family").selectOption("time");
    await b.getByLabel("Query").fill("what time is it in Tokyo");
    await b.getByRole("button", { name: "Find" }).click();
    await expect.poll(() => b.locator("ol.ranking > li").count()).toBeGreaterThan(0);
    const families = await b.locator("ol.ranking > li").evaluateAll((items) => items.map((li) => li.getAttribute("data-tool")!.split(".")[0]));
    expect(new Set(families)).toEqual(new Set(["time"]));
    expect(await a.locator("ol.ranking > li").count()).toBe(direct.tools.length);
    // Each tool says where it stands in the other request's ranking.
    const timeConvert = direct.tools.findIndex((t: { name: string }) => t.name === "time.convert");
    const inB = await b.locator('li[data-tool="time.convert"] [data-elsewhere]').getAttribute("data-elsewhere");
    expect(inB).toBe(timeConvert < 0 ? "" : String(timeConvert + 1));
    await record("find");
  });

  it("sessions: a session's belt with its pins' budget share and last use, and its surface in tokens", async () => {
    await view("Sessions");
    // The session is offered from the last hour's calls; typing its id works as well.
    await page.locator(`button[data-recent-session="${sessionId}"]`).click();
    await expect.poll(() => page.locator("[data-session]").getAttribute("data-session")).toBe(sessionId);
    await page.getByLabel("Session id").fill(sessionId);
    await page.getByRole("button", { name: "Show belt" }).click();
    const pin = page.locator('tr[data-tool="time.now"]');
    await expect.poll(() => pin.count()).toBe(1);
    const admin = await json(await gateway.request(`/v1/admin/sessions/${sessionId}`));
    const entry = admin.belt.find((t: { name: string }) => t.name === "time.now");
    expect(entry).toMatchObject({ source: "pin", last_used_at: expect.any(String) });
    const cells = await pin.locator("td").allTextContents();
    expect(cells[0]).toBe("pin");
    expect(cells[2]).toBe(`${(entry.share * 100).toFixed(1)} %`);
    expect(cells[3]).not.toBe("—");
    expect(await page.locator("[data-session] dd strong").textContent()).toBe(admin.surface_tokens.toLocaleString("en"));
    expect(await page.locator('tr[data-tool^="notes."]').count()).toBeGreaterThan(0);
    await record("sessions");
  });

  it("calls: a call made over REST appears in the records and in its family's pictures; filters narrow the records", async () => {
    await json(await gateway.request("/v1/call", { body: { tool: "convert.temperature", args: { value: 100, from: "C", to: "F" } } }));
    await view("Calls");
    const row = page.locator('table.records tr[data-tool="convert.temperature"][data-outcome="OK"]');
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.locator("td").nth(1).textContent()).toBe("operator");
    expect(await page.locator('table.records tr[data-tool="convert.temperature"]:not([data-outcome="OK"])').count()).toBe(1);
    // Pictures, not tables: an SVG of calls and one of latency for each family called.
    for (const family of ["convert", "time", "notes"]) {
      expect(await page.locator(`svg[data-chart="calls"][data-family="${family}"] rect.calls`).count(), family).toBeGreaterThan(0);
      expect(await page.locator(`svg[data-chart="latency"][data-family="${family}"]`).count(), family).toBe(1);
    }
    expect(await page.locator('svg[data-chart="calls"][data-family="convert"] rect.errors').count()).toBeGreaterThan(0);
    await record("calls");
    await page.getByLabel("Tool", { exact: true }).fill("notes.create");
    await page.getByRole("button", { name: "Filter" }).click();
    await expect.poll(() => page.locator("table.records tbody tr").count()).toBe(1);
    expect(await page.locator("table.records tbody tr").getAttribute("data-tool")).toBe("notes.create");
  });

  it("misses: find and call-name misses, most frequent first, with the best tool, and a YAML snippet for the tool picked", async () => {
    await json(await gateway.request("/v1/find", { body: { query: "wombat telemetry flux", mode: "keyword" } }));
    await json(await gateway.request("/v1/find", { body: { query: "wombat telemetry flux", mode: "keyword" } }));
    // Find misses are written after the answer: the view is opened once both are in the table.
    await expect.poll(async () => (await json(await gateway.request("/v1/admin/misses?kind=find"))).misses[0]?.count, { timeout: 10_000 }).toBe(2);
    await view("Misses");
    const finds = page.locator('[data-misses="find"] tbody tr');
    await expect.poll(() => finds.first().getAttribute("data-miss")).toBe("wombat telemetry flux");
    expect(await finds.first().locator("td").first().textContent()).toBe("2");
    const calls = page.locator('[data-misses="call"] tr[data-miss]');
    await expect.poll(() => calls.count()).toBeGreaterThan(0);
    const callMiss = calls.filter({ hasText: "notes.ad_it" });
    expect(await callMiss.count()).toBe(1);
    await callMiss.getByRole("button").click();
    await page.getByLabel("Tool", { exact: true }).selectOption("notes.create");
    const snippet = page.locator("pre.yaml");
    await expect.poll(() => snippet.textContent()).toContain('  - name: "create"');
    expect(await snippet.getAttribute("data-snippet")).toBe("aliases");
    expect(await snippet.textContent()).toContain('      - "notes.ad_it"');
    await page.getByRole("radio", { name: "examples" }).check();
    await expect.poll(() => snippet.getAttribute("data-snippet")).toBe("examples");
    await record("misses");
  });

  it("health: the stopped upstream is red once the gateway probes again", async () => {
    await view("Health");
    const everything = page.locator('tr[data-check^="upstream"][data-name="everything"]');
    // Asks again until a round of probes newer than the stop has answered: past HEALTH_CACHE_SECS one request
    // starts it (and still gets the last report), a later one gets its report.
    await expect
      .poll(
        async () => {
          await page.getByRole("button", { name: "Check again" }).click();
          await page.locator('tr[data-check="table"]').waitFor();
          return everything.getAttribute("data-ok");
        },
        { timeout: 30_000, interval: 250 },
      )
      .toBe("false");
    expect(await everything.getAttribute("class")).toBe("down");
    expect(await everything.locator(".pill").textContent()).toBe("down");
    expect(await page.locator('tr[data-check^="upstream"][data-name="notes"]').getAttribute("class")).toBe("up");
    expect(await page.locator("p[data-status]").textContent()).toContain("upstream everything");
    await screenshot(page, "health-down");
  });

  it("the page reported no script error or CSP violation, and axe-core found no WCAG A/AA violation in any view", () => {
    expect(problems).toEqual([]);
    expect([...axe.keys()].sort()).toEqual(["calls", "catalog", "find", "health", "key prompt", "misses", "sessions"]);
    expect(Object.fromEntries(axe)).toEqual(Object.fromEntries([...axe.keys()].map((k) => [k, []])));
  });
});
