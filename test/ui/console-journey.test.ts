/**
 * The web console in a real browser (Debian's chromium, headless, through playwright-core) against the
 * real local stack: the control plane as `npm start` runs it, a local forgelet with simulated GPUs, and
 * real training runs of the stdlib char-LM. One user journey, in order: an admin creates a user on the
 * admin page; she signs in with her token, finds her running job, watches the loss chart grow and log
 * lines arrive, pauses and resumes it from the job page while the fleet's GPU grid shows the GPU held,
 * released and held again; then the bad cases (another user's job, no metrics, XSS through a log line, a
 * metric key and an hparam, a job that fails and the diagnosis on its page, a revoked session),
 * keyboard-only actions and an accessibility scan. Every
 * page is saved as a screenshot, light and dark, under test-results/ui/.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { submitCharlm } from "../support/checkpoints.js";
import { type ControlPlane, call, startControlPlane } from "../support/control-plane.js";
import { waitForStatus } from "../support/jobs.js";
import { submitCustom } from "../support/lifecycle.js";
import { uploadWorkspace } from "../support/workspace.js";
import { axeScan, serious } from "./a11y.js";
import { launch, shot, signIn, type UiBrowser } from "./browser.js";
import { dialogs, focusOrder, newPage, pageErrors, shots, tabTo, until } from "./journey-support.js";

const FLEET = "local";
/** The size of series a chart must draw without freezing the page. */
const BIG_POINTS = 100_000;
let bigJob = "";
const XSS = `<script>alert("sf-xss")</script>"><img src=x onerror=alert("sf-xss")>`;

let cp: ControlPlane;
let ui: UiBrowser;
let admin: BrowserContext;
let adminPage: Page;
let adaToken = "";
let ada: BrowserContext;
let page: Page;
let jobId = "";
/** Every point of `key` the API has for `run` (paged as the API pages). */
async function apiPointCount(token: string, id: string, run: string, key: string): Promise<number> {
  let after = -1;
  let n = 0;
  for (;;) {
    const r = await call(
      cp,
      token,
      "GET",
      `/v1/jobs/${id}/metrics?run=${run}&key=${encodeURIComponent(key)}&after=${after}`,
    );
    const points = (r.body.points as Array<{ step: number }> | undefined) ?? [];
    n += points.length;
    if (points.length === 0) return n;
    after = points.at(-1)!.step;
  }
}

async function latestRun(token: string, id: string): Promise<string> {
  const r = await call(cp, token, "GET", `/v1/jobs/${id}`);
  const runs = r.body.runs as Array<{ id: string }>;
  return runs.at(-1)!.id;
}

const chartPoints = (p: Page, key = "train/loss") =>
  p
    .locator(`figure[data-chart-key="${key}"]`)
    .getAttribute("data-points", { timeout: 2000 })
    .then((v) => Number(v ?? "0"))
    // Not there yet (no point reported), or the page is reloading: none drawn.
    .catch(() => 0);
const jobState = (p: Page) =>
  p
    .locator("[data-job-state]")
    .first()
    .textContent()
    .then((t) => (t ?? "").trim());
const heldBy = (p: Page, id: string) => p.locator(`[data-gpu][data-job-id="${id}"]`).count();

beforeAll(async () => {
  [cp, ui] = await Promise.all([startControlPlane(), launch()]);
  admin = await ui.context();
  adminPage = await newPage(admin);
});

afterAll(async () => {
  if (jobId && adaToken) await call(cp, adaToken, "POST", `/v1/jobs/${jobId}/stop`).catch(() => undefined);
  await ui?.close();
  await cp?.stop();
});

describe("the console, in chromium, against the real stack", () => {
  it("an admin signs in with a token and creates a user on the admin page", async () => {
    await signIn(adminPage, cp.url, cp.adminToken);
    await adminPage.goto(`${cp.url}/console/admin`);
    await adminPage.getByLabel("Name", { exact: true }).fill("ada");
    await adminPage.getByLabel("Role", { exact: true }).selectOption("operator");
    await adminPage.getByRole("button", { name: "Create user" }).click();
    const shown = await adminPage.locator("main code", { hasText: /^sfp_/ }).first().textContent();
    adaToken = (shown ?? "").trim();
    expect(adaToken).toMatch(/^sfp_[A-Za-z0-9_-]{20,}$/);
    await shots(adminPage, "admin-user-created");
    const me = await call(cp, adaToken, "GET", "/v1/me");
    expect((me.body.user as { name: string; role: string }).role).toBe("operator");
  });

  it("she finds her running job; the loss chart grows and live log lines arrive", async () => {
    jobId = await submitCharlm(cp, adaToken, { fleet: FLEET, name: "ui-charlm", maxSteps: 200_000 });
    await waitForStatus(cp, adaToken, jobId, ["RUNNING"], 90_000);
    ada = await ui.context();
    page = await newPage(ada);
    await signIn(page, cp.url, adaToken);
    const row = page.locator(`tr[data-job-id="${jobId}"]`);
    await row.waitFor();
    expect(await row.textContent().then((t) => (t ?? "").trim())).toContain("ui-charlm");
    // Times are shown in the viewer's zone (this browser: Asia/Tokyo), the exact instant kept as its title.
    const created = row.locator("time[data-local-time]").first();
    expect(await created.textContent()).toContain("GMT+9");
    expect(await created.getAttribute("title")).toMatch(/Z$/);
    await shots(page, "jobs");
    await row.getByRole("link", { name: "ui-charlm" }).click();
    await page.waitForURL(new RegExp(`/console/jobs/${jobId}`));
    expect(
      await until(
        "state",
        () => jobState(page),
        (s) => s === "RUNNING",
      ),
    ).toBe("RUNNING");

    const first = await until(
      "chart points",
      () => chartPoints(page),
      (n) => n >= 2,
    );
    const later = await until(
      "chart growing",
      () => chartPoints(page),
      (n) => n > first,
      30_000,
    );
    expect(later).toBeGreaterThan(first);
    await shots(page, "job-charts");

    await page.getByRole("link", { name: "Logs", exact: true }).click();
    const lines = page.locator("ol#log-lines > li");
    const before = await until(
      "log lines",
      () => lines.count(),
      (n) => n > 0,
    );
    const after = await until(
      "live log lines",
      () => lines.count(),
      (n) => n > before,
      30_000,
    );
    expect(after).toBeGreaterThan(before);
    await shots(page, "job-logs");
  });

  it("the GPU grid shows the GPU held; pause releases it, the chart holds every point; resume holds it again", async () => {
    const grid = await newPage(ada);
    await grid.goto(`${cp.url}/console/fleets/${FLEET}`);
    expect(
      await until(
        "GPU held",
        () => heldBy(grid, jobId),
        (n) => n === 1,
      ),
    ).toBe(1);
    await shots(grid, "fleet-gpu-grid");

    await page.goto(`${cp.url}/console/jobs/${jobId}`);
    await page.getByRole("button", { name: "Pause", exact: true }).click();
    await page.getByRole("button", { name: "Confirm pause" }).click();
    expect(
      await until(
        "paused",
        () => jobState(page),
        (s) => s === "PAUSED",
        90_000,
      ),
    ).toBe("PAUSED");
    expect(
      await until(
        "GPU released",
        () => heldBy(grid, jobId),
        (n) => n === 0,
        30_000,
      ),
    ).toBe(0);

    // Paused: the series is final, so the chart must show exactly the points the API has.
    const run = await latestRun(adaToken, jobId);
    await page.goto(`${cp.url}/console/jobs/${jobId}/charts?run=${run}`);
    const want = await apiPointCount(adaToken, jobId, run, "train/loss");
    expect(want).toBeGreaterThan(1);
    expect(
      await until(
        "all points drawn",
        () => chartPoints(page),
        (n) => n === want,
        20_000,
      ),
    ).toBe(want);

    // Resume with the keyboard only: focus moves through the page to the button, Enter presses it.
    await page.goto(`${cp.url}/console/jobs/${jobId}`);
    await tabTo(page, "Resume");
    await page.keyboard.press("Enter");
    await page.getByRole("button", { name: "Confirm resume" }).waitFor();
    await tabTo(page, "Confirm resume");
    await page.keyboard.press("Enter");
    expect(
      await until(
        "running again",
        () => jobState(page),
        (s) => s === "RUNNING",
        90_000,
      ),
    ).toBe("RUNNING");
    expect(
      await until(
        "GPU held again",
        () => heldBy(grid, jobId),
        (n) => n === 1,
        30_000,
      ),
    ).toBe(1);
    await grid.close();
  });

  it("keyboard-only navigation reaches every action the job allows, and the pages pass an accessibility scan", async () => {
    await page.goto(`${cp.url}/console/jobs/${jobId}`);
    // The resumed run's first points make the charts tab reload itself once: tab through the page after.
    await until(
      "the resumed run's chart",
      () => chartPoints(page),
      (n) => n > 0,
      60_000,
    );
    await page.waitForLoadState("load");
    const reached = await focusOrder(page, 80);
    for (const action of ["Stop", "Pause"]) expect(reached, reached.join(" | ")).toContain(action);
    for (const tab of ["Charts", "Logs", "Events", "Hardware", "Artifacts", "Config", "Samples"]) {
      expect(reached, reached.join(" | ")).toContain(tab);
    }

    const pages = [
      "/console/jobs",
      `/console/jobs/${jobId}/charts`,
      `/console/jobs/${jobId}/logs`,
      `/console/jobs/${jobId}/events`,
      `/console/jobs/${jobId}/hardware`,
      `/console/jobs/${jobId}/artifacts`,
      `/console/jobs/${jobId}/config`,
      `/console/jobs/${jobId}/samples`,
      `/console/fleets`,
      `/console/fleets/${FLEET}`,
      "/console/usage",
    ];
    for (const path of pages) {
      await page.goto(`${cp.url}${path}`);
      for (const scheme of ["light", "dark"] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        const found = serious(await axeScan(page));
        expect(found, `${path} (${scheme}): ${JSON.stringify(found, null, 2)}`).toEqual([]);
      }
      await page.emulateMedia({ colorScheme: "light" });
      const name = path
        .replace(`/console/jobs/${jobId}`, "job")
        .replace(/^\/console\//, "")
        .replaceAll("/", "-");
      if (!["jobs", "job-charts", "job-logs"].includes(name)) await shots(page, name);
    }
    for (const [path, name] of [
      ["/console/admin", "admin"],
      ["/console/admin/users/ada", "admin-user"],
      ["/console/admin/fleets", "admin-fleets"],
      ["/console/admin/webhooks", "admin-webhooks"],
    ] as const) {
      await adminPage.goto(`${cp.url}${path}`);
      expect(serious(await axeScan(adminPage)), path).toEqual([]);
      await shots(adminPage, name);
    }
    // The device login's approval page, reached from `sf login`'s link by a signed-in browser.
    const started = await call(cp, null, "POST", "/v1/auth/device");
    await page.goto(String(started.body.verification_uri_complete).replace(/^https?:\/\/[^/]+/, cp.url));
    expect(await page.getByRole("button", { name: "Approve" }).isVisible()).toBe(true);
    expect(serious(await axeScan(page)), "/device").toEqual([]);
    await shots(page, "device");

    // Down to a phone: the jobs list and the job page fit the width (no sideways scroll of the page).
    const phone = await ui.context({ phone: true });
    const small = await newPage(phone);
    await signIn(small, cp.url, adaToken);
    for (const [path, name] of [
      ["/console/jobs", "phone-jobs"],
      [`/console/jobs/${jobId}`, "phone-job"],
    ] as const) {
      await small.goto(`${cp.url}${path}`);
      const overflow = await small.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, path).toBeLessThanOrEqual(1);
      await shot(small, name);
    }
    await phone.close();
  });

  it("stop from the job page ends the job and frees the GPU", async () => {
    await page.goto(`${cp.url}/console/jobs/${jobId}`);
    await page.getByRole("button", { name: "Stop", exact: true }).click();
    await page.getByRole("button", { name: "Confirm stop" }).click();
    expect(
      await until(
        "stopped",
        () => jobState(page),
        (s) => s === "STOPPED",
        90_000,
      ),
    ).toBe("STOPPED");
    // Stopped: pause and stop are shown but not usable; retry (a new job) and resume (the stopped run's
    // checkpoint) are.
    await page.reload();
    expect(await page.getByRole("button", { name: "Pause", exact: true }).isDisabled()).toBe(true);
    expect(await page.getByRole("button", { name: "Stop", exact: true }).isDisabled()).toBe(true);
    expect(await page.getByRole("button", { name: "Retry", exact: true }).isEnabled()).toBe(true);
  });

  it("another user's job is a 404 page that shows nothing of it", async () => {
    const bob = String(
      (await call(cp, cp.adminToken, "POST", "/v1/users", { name: "bob", role: "operator" })).body.token,
    );
    const ctx = await ui.context();
    // Not watched for errors: the browser logs the 404 answer this test asks for.
    const p = await ctx.newPage();
    await signIn(p, cp.url, bob);
    const res = await p.goto(`${cp.url}/console/jobs/${jobId}`);
    expect(res?.status()).toBe(404);
    const text = await p
      .locator("body")
      .textContent()
      .then((t) => (t ?? "").trim());
    expect(text).toContain("Not found");
    expect(text).not.toContain("ui-charlm");
    await shots(p, "not-found");
    await ctx.close();
  });

  it("a job with no metrics says so; XSS through a log line, a metric key and an hparam value stays inert text", async () => {
    const workspace = await uploadWorkspace(cp.url, adaToken, [
      {
        path: "exp/train.sh",
        mode: 0o755,
        content: `#!/usr/bin/env bash
set -e
python3 - <<'PY'
from starforge.report import init, log, log_hparams, finish
x = ${JSON.stringify(XSS)}
init()
log_hparams({"note": x})
log({x: 1.0}, step=1)
log({x: 0.5}, step=2)
print("log line " + x, flush=True)
finish()
PY
`,
      },
    ]);
    const quiet = await uploadWorkspace(cp.url, adaToken, [
      { path: "exp/train.sh", mode: 0o755, content: "#!/usr/bin/env bash\necho no metrics from me\n" },
    ]);
    const big = await uploadWorkspace(cp.url, adaToken, [
      {
        path: "exp/train.sh",
        mode: 0o755,
        content: `#!/usr/bin/env bash
set -e
export SF_REPORT_FLUSH_TIMEOUT=180
python3 - <<'PY'
import math
from starforge.report import init, log, finish
init()
for i in range(${BIG_POINTS}):
    log({"big/series": math.sin(i / 500.0) + i / 50000.0}, step=i)
finish()
PY
`,
      },
    ]);
    bigJob = await submitCustom(cp, adaToken, {
      name: "ui-100k",
      fleet: FLEET,
      workspace: big,
      maxRetries: 0,
    });
    const xssJob = await submitCustom(cp, adaToken, {
      name: "ui-xss",
      fleet: FLEET,
      workspace,
      maxRetries: 0,
    });
    const quietJob = await submitCustom(cp, adaToken, {
      name: "ui-quiet",
      fleet: FLEET,
      workspace: quiet,
      maxRetries: 0,
    });
    for (const id of [xssJob, quietJob, bigJob]) {
      const done = await waitForStatus(cp, adaToken, id, ["SUCCEEDED", "FAILED"], 240_000);
      expect(done.job.status, JSON.stringify(done.runs)).toBe("SUCCEEDED");
    }

    await page.goto(`${cp.url}/console/jobs/${quietJob}/charts`);
    expect(await page.getByRole("heading", { name: "No metrics yet" }).isVisible()).toBe(true);
    await shots(page, "job-no-metrics");

    for (const tab of ["charts", "logs", "config"]) {
      await page.goto(`${cp.url}/console/jobs/${xssJob}/${tab}`);
      await page.waitForTimeout(500);
      expect(await page.locator("img[src=x]").count(), tab).toBe(0);
      expect(await page.locator("main script").count(), tab).toBe(0);
      expect(
        await page
          .locator("main")
          .textContent()
          .then((t) => (t ?? "").trim()),
        tab,
      ).toContain('<script>alert("sf-xss")</script>');
    }
    expect(dialogs).toEqual([]);
  });

  it("a job that fails shows why on top, live; its line's link opens the log at that line, highlighted", async () => {
    // The training prints, waits (so the page is open when it fails), then raises with markup in its message.
    const workspace = await uploadWorkspace(cp.url, adaToken, [
      {
        path: "exp/train.sh",
        mode: 0o755,
        content: `#!/usr/bin/env bash
set -e
for i in $(seq 1 300); do echo "step $i loss 0.5"; done
sleep 5
python3 - <<'PY'
raise ValueError(${JSON.stringify(`bad label ${XSS}`)})
PY
`,
      },
    ]);
    const failing = await submitCustom(cp, adaToken, {
      name: "ui-fails",
      fleet: FLEET,
      workspace,
      maxRetries: 0,
    });
    await waitForStatus(cp, adaToken, failing, ["RUNNING"], 90_000);
    await page.goto(`${cp.url}/console/jobs/${failing}`);
    // The page follows the job: FAILED, "Diagnosing…" for a moment, then the diagnosis, without a reload.
    // Fails with what the page and the API last showed: which of the two lagged.
    await until(
      "the diagnosis on the page",
      async () => ({
        page: await page
          .locator("[data-diagnosis-slot]")
          .textContent({ timeout: 2000 })
          .then((t) => t ?? "")
          .catch(() => "(no slot)"),
        api: (
          (await call(cp, adaToken, "GET", `/v1/jobs/${failing}`)).body.diagnosis as { class?: string } | null
        )?.class,
      }),
      (v) => v.page.includes("USER_EXCEPTION"),
      90_000,
    );
    const cls = page.locator("[data-diagnosis-class]");
    expect(await cls.textContent()).toBe("USER_EXCEPTION");
    expect(await jobState(page)).toBe("FAILED");
    const block = page.getByRole("region", { name: "Why it failed USER_EXCEPTION" });
    expect(await block.locator("code").textContent()).toBe(`ValueError: bad label ${XSS}`);
    expect(await block.textContent()).toContain("What to change:");
    expect(await block.textContent()).toContain("USER_EXCEPTION is not retried");
    expect(await block.locator("img[src=x], script").count()).toBe(0);
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      const found = serious(await axeScan(page));
      expect(found, `failed job (${scheme}): ${JSON.stringify(found, null, 2)}`).toEqual([]);
    }
    await shots(page, "job-diagnosis");

    // A fresh load shows the same block (rendered by the server).
    await page.reload();
    expect(await page.locator("[data-diagnosis-class]").textContent()).toBe("USER_EXCEPTION");
    await block.getByRole("link", { name: /^Show this line in rank 0's log$/ }).click();
    await page.waitForURL(/\/logs\?.*&at=\d+#log-\d+$/);
    const target = page.locator("ol#log-lines > li.log-target");
    expect(await target.count()).toBe(1);
    expect(await target.locator(".log-text").textContent()).toBe(`ValueError: bad label ${XSS}`);
    expect(await target.getAttribute("aria-current")).toBe("true");
    expect(await target.isVisible()).toBe(true);
    // Scrolled to, inside the log box, with the lines before it there to read.
    const seen = await target.evaluate((li) => {
      const r = li.getBoundingClientRect();
      const box = li.closest("[data-log-box]")!.getBoundingClientRect();
      return r.top >= box.top && r.bottom <= box.bottom && r.top >= 0 && r.bottom <= window.innerHeight;
    });
    expect(seen).toBe(true);
    const lines = page.locator("ol#log-lines > li");
    expect(await lines.count()).toBeGreaterThan(100);
    expect(await page.locator("main img[src=x], main script").count()).toBe(0);
    expect(serious(await axeScan(page)), "logs at the diagnosed line").toEqual([]);
    await shots(page, "job-logs-diagnosed-line");
    expect(dialogs).toEqual([]);
  });

  it("a chart of 100,000 points draws them all and the page stays usable", async () => {
    const run = await latestRun(adaToken, bigJob);
    expect(await apiPointCount(adaToken, bigJob, run, "big/series")).toBe(BIG_POINTS);
    const t0 = Date.now();
    await page.goto(`${cp.url}/console/jobs/${bigJob}/charts`);
    const drawn = await until(
      "100k points drawn",
      () => chartPoints(page, "big/series"),
      (n) => n === BIG_POINTS,
      60_000,
    );
    expect(drawn).toBe(BIG_POINTS);
    const drawMs = Date.now() - t0;
    // Usable: a control answers and the chart redraws with it (log scale on and off).
    const logScale = page.getByLabel("Log scale");
    await logScale.check();
    expect(await logScale.isChecked()).toBe(true);
    await logScale.uncheck();
    expect(await chartPoints(page, "big/series")).toBe(BIG_POINTS);
    // For the record only (timings are measured by benchmarks, never asserted in a test).
    console.log(`[ui] ${BIG_POINTS} points: drawn ${drawMs} ms after navigation`);
    await shots(page, "job-charts-100k");
  });

  it("an expired session leads to the sign-in page, and back to the page after signing in", async () => {
    // Expire ada's sessions in the local D1 itself (both their idle and absolute ends in the past).
    const ended = expireSessions();
    expect(ended).toBeGreaterThan(0);
    await page.goto(`${cp.url}/console/usage`);
    expect(page.url()).toContain("/console/sign-in");
    expect(await page.locator("main").textContent()).toContain("session ended");
    await page.getByLabel("Personal access token").fill(adaToken);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(/\/console\/usage/);
  });

  it("a session whose token is revoked ends: the next page is the sign-in page", async () => {
    const tokens = await call(cp, adaToken, "GET", "/v1/tokens");
    const list = tokens.body.tokens as Array<{ id: string }>;
    // Ada's only token is the one she signed in with.
    expect(list).toHaveLength(1);
    await call(cp, adaToken, "DELETE", `/v1/tokens/${list[0]!.id}`);
    await page.goto(`${cp.url}/console/jobs`);
    expect(page.url()).toContain("/console/sign-in");
    expect(
      await page
        .locator("main")
        .textContent()
        .then((t) => (t ?? "").trim()),
    ).toContain("session ended");
    await shots(page, "sign-in");
  });

  it("no page logged an error or violated its CSP", () => {
    expect(pageErrors).toEqual([]);
  });
});

/**
 * Sets every console session's idle and absolute expiry in the past, in the D1 database the local
 * control plane keeps in its state directory (SQLite, as miniflare stores D1); returns how many.
 */
function expireSessions(): number {
  const dir = join(cp.stateDir, "state/v3/d1/miniflare-D1DatabaseObject");
  let changed = 0;
  for (const f of readdirSync(dir).filter((n) => n.endsWith(".sqlite") && n !== "metadata.sqlite")) {
    const db = new Database(join(dir, f));
    try {
      const has = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'console_sessions'").get();
      if (has) {
        const past = new Date(Date.now() - 60_000).toISOString();
        changed += db
          .prepare("UPDATE console_sessions SET idle_expires_at = ?, expires_at = ?")
          .run(past, past).changes;
      }
    } finally {
      db.close();
    }
  }
  return changed;
}
