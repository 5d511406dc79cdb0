/** The console's frame: signing in, the session cookie, assets, headers on every page. */
import { describe, expect, it } from "vitest";
import { ConsoleBrowser, signIn } from "./console-support.js";
import { ADMIN } from "./helpers.js";

describe("console frame", () => {
  it("opens at the server's root: / leads to the console", async () => {
    const r = await new ConsoleBrowser().get("/");
    expect(r.status).toBe(302);
    expect(r.location).toBe("/console/jobs");
  });

  it("sends a browser without a session to sign in and back", async () => {
    const b = new ConsoleBrowser();
    const r = await b.get("/console/jobs?state=RUNNING");
    expect(r.status).toBe(303);
    expect(r.location).toBe(`/console/sign-in?next=${encodeURIComponent("/console/jobs?state=RUNNING")}`);
    const page = await b.get(r.location!);
    expect(page.status).toBe(200);
    expect(page.html).toContain("Personal access token");
  });

  it("signs in with a token and shows the jobs page with the user's name", async () => {
    const b = await signIn(ADMIN);
    const r = await b.get("/console/jobs");
    expect(r.status).toBe(200);
    expect(r.html).toContain("<h1>Jobs</h1>");
    expect(r.html).toContain("admin");
    expect(r.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(r.headers.get("x-frame-options")).toBe("DENY");
    const script = /<script src="(\/console\/assets\/app\.[0-9a-f]{12}\.js)"/.exec(r.html)?.[1];
    expect(script).toBeDefined();
    const asset = await b.get(script!);
    expect(asset.status).toBe(200);
    expect(asset.headers.get("content-type")).toContain("javascript");
    expect(asset.headers.get("cache-control")).toContain("immutable");
  });

  it("refuses a wrong token with the API's reason", async () => {
    const b = new ConsoleBrowser();
    const r = await b.post("/console/sign-in", { token: "sfp_wrong", next: "/console/jobs" });
    expect(r.status).toBe(401);
    expect(r.html).toContain("unknown token");
    expect(b.cookie).toBe("");
  });
});
