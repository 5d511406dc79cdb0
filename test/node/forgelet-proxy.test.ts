/**
 * Tier 3: forgelet behind an outbound proxy. The control plane is served over HTTPS (a TLS front with a
 * private CA, trusted through NODE_EXTRA_CA_CERTS as a real host would), and the only way out is a real
 * CONNECT proxy on loopback that counts its tunnels. Enrollment, the agent's WebSocket and its blob
 * downloads all go through HTTPS_PROXY and a job runs; NO_PROXY=127.0.0.1 takes the proxy out of the
 * path. A table of NO_PROXY values shows the requests (undici) and the socket (https-proxy-agent) always
 * take the same path; a proxy that wants credentials gets them from the URL, which is never printed.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DoctorReport } from "../../forgelet/doctor-report.js";
import { proxyFor } from "../../forgelet/proxy-env.js";
import { forgeletSettings } from "../../forgelet/settings.js";
import { type ConnectProxy, startConnectProxy } from "../support/connect-proxy.js";
import { type ControlPlane, call } from "../support/control-plane.js";
import { enrollForgelet, type ForgeletProc } from "../support/forgelet.js";
import { waitForStatus } from "../support/jobs.js";
import { submitCustom } from "../support/lifecycle.js";
import { newFleet, newUser, sharedControlPlane } from "../support/shared-control-plane.js";
import { startTlsFront, type TlsFront } from "../support/tls-front.js";
import { uploadWorkspace } from "../support/workspace.js";

const BIN = resolve(import.meta.dirname, "../../dist/forgelet.mjs");
const PROXY_VARS = ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy"];

let cp: ControlPlane;
let front: TlsFront;
let proxy: ConnectProxy;
let op = "";
let fleet = "";
let scratch = "";
const agents: ForgeletProc[] = [];

/**
 * This process's environment with every proxy variable set to exactly what a test says, upper and lower
 * case alike (the lower-case ones win when both are set, even empty), and the private CA trusted.
 */
function envWith(o: { https?: string; http?: string; no?: string; ca?: string }): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !PROXY_VARS.includes(k)) env[k] = v;
  const https = o.https ?? "";
  const http = o.http ?? "";
  const no = o.no ?? "";
  return {
    ...env,
    HTTPS_PROXY: https,
    https_proxy: https,
    HTTP_PROXY: http,
    http_proxy: http,
    NO_PROXY: no,
    no_proxy: no,
    NODE_EXTRA_CA_CERTS: o.ca ?? front.caFile,
  };
}

const frontHost = () => new URL(front.url).host;

async function runJob(name: string): Promise<void> {
  const id = await submitCustom(cp, op, {
    name,
    fleet,
    workspace: await uploadWorkspace(cp.url, op, [
      { path: "exp/train.sh", content: `#!/usr/bin/env bash\necho ${name}\n`, mode: 0o755 },
    ]),
    maxRetries: 0,
  });
  const done = await waitForStatus(cp, op, id, ["SUCCEEDED", "FAILED"], 90_000);
  expect(done.job.status, JSON.stringify(done.runs)).toBe("SUCCEEDED");
}

function doctor(
  env: { https?: string; http?: string; no?: string; ca?: string },
  stateDir: string,
  server = front.url,
) {
  return new Promise<DoctorReport>((ok, ko) => {
    execFile(
      process.execPath,
      [BIN, "doctor", "--server", server, "--state-dir", stateDir, "--json"],
      { encoding: "utf8", env: envWith(env), timeout: 60_000 },
      (_err, stdout, stderr) => {
        try {
          ok(DoctorReport.parse(JSON.parse(stdout)));
        } catch (e) {
          ko(new Error(`doctor printed no report: ${String(e)}\n${stdout}${stderr}`));
        }
      },
    );
  });
}

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), "sf-proxy-"));
  cp = sharedControlPlane();
  front = await startTlsFront(cp.url);
  proxy = await startConnectProxy();
  op = (await newUser(cp, "prox")).token;
  fleet = await newFleet(cp, "proxied");
});

afterAll(async () => {
  for (const a of agents) await a.dispose();
  await proxy?.close();
  await front?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe("forgelet behind HTTPS_PROXY", () => {
  it("enrolls through the proxy's tunnel to the https control plane", async () => {
    const t = await call(cp, cp.adminToken, "POST", `/v1/fleets/${fleet}/enrollment-tokens`, {});
    const stateDir = mkdtempSync(join(scratch, "enroll-"));
    // Not spawnSync: the proxy and the TLS front live in this process and must keep answering.
    const r = await new Promise<{ code: number; stderr: string }>((ok) => {
      execFile(
        process.execPath,
        [BIN, "enroll", "--server", front.url, "--token", String(t.body.token), "--state-dir", stateDir],
        { encoding: "utf8", env: envWith({ https: proxy.url }), timeout: 60_000 },
        (err, _stdout, stderr) => ok({ code: err ? Number(err.code ?? 1) : 0, stderr }),
      );
    });
    expect(r.code, r.stderr).toBe(0);
    expect(proxy.tunnelsTo(frontHost())).toHaveLength(1);
  });

  it("opens its WebSocket and fetches its blobs through the proxy, and runs a job", async () => {
    const before = proxy.tunnelsTo(frontHost()).length;
    const agent = await enrollForgelet(cp, fleet, {
      name: "behind-proxy",
      gpus: 1,
      env: envWith({ https: proxy.url }),
      args: ["--server", front.url],
    });
    agents.push(agent);
    expect(agent.log()).toContain(
      `connected to ${front.url.replace("https", "wss")}/v1/agents/connect through the proxy ${proxy.url}`,
    );
    // The agent fetches nothing before it connects: the one new tunnel is its socket, and it stays open.
    const afterConnect = proxy.tunnelsTo(frontHost());
    expect(afterConnect).toHaveLength(before + 1);
    expect(afterConnect.at(-1)?.open).toBe(true);
    await runJob("through-the-proxy");
    // The workspace and the capsule came down through new tunnels (fetch), the socket's is still open.
    expect(proxy.tunnelsTo(frontHost()).length).toBeGreaterThan(before + 1);
    expect(afterConnect.at(-1)?.open).toBe(true);
    await agent.dispose();
  }, 150_000);

  it("goes direct, proxy untouched, when NO_PROXY names the server", async () => {
    const before = proxy.tunnels.length;
    const agent = await enrollForgelet(cp, fleet, {
      name: "no-proxy",
      gpus: 1,
      env: envWith({ https: proxy.url, no: "127.0.0.1" }),
      args: ["--server", front.url],
    });
    agents.push(agent);
    expect(agent.log()).not.toContain("through the proxy");
    await runJob("around-the-proxy");
    expect(proxy.tunnels.length).toBe(before);
    await agent.dispose();
  }, 150_000);

  it("sends requests and the socket the same way for every NO_PROXY form", async () => {
    const stateDir = mkdtempSync(join(scratch, "table-"));
    const port = new URL(front.url).port;
    const table: Array<[string, "proxy" | "direct"]> = [
      ["", "proxy"],
      ["127.0.0.1", "direct"],
      [`127.0.0.1:${port}`, "direct"],
      ["127.0.0.1:1", "proxy"],
      [".0.0.1", "direct"],
      ["*.0.0.1", "direct"],
      ["0.0.1", "direct"],
      ["localhost, example.com", "proxy"],
      ["localhost 127.0.0.1", "direct"],
      ["*", "direct"],
      ["127.0.0.0/8", "proxy"],
    ];
    for (const [noProxy, way] of table) {
      const before = proxy.tunnelsTo(frontHost()).length;
      const rep = await doctor({ https: proxy.url, no: noProxy }, stateDir);
      const byId = Object.fromEntries(rep.checks.map((c) => [c.id, c]));
      expect(byId.https?.status, `${noProxy}: ${byId.https?.detail}`).toBe("ok");
      expect(byId.websocket?.status, `${noProxy}: ${byId.websocket?.detail}`).toBe("ok");
      // https and websocket each opened one tunnel, or neither did.
      expect(proxy.tunnelsTo(frontHost()).length - before, `NO_PROXY=${noProxy}`).toBe(
        way === "proxy" ? 2 : 0,
      );
      expect(rep.proxy, `NO_PROXY=${noProxy}`).toBe(way === "proxy" ? proxy.url : null);
      // Through a proxy, this host resolves only the proxy's name.
      expect(byId.dns?.detail.startsWith("127.0.0.1 is resolved by the proxy")).toBe(way === "proxy");
      const settings = forgeletSettings({ HTTPS_PROXY: proxy.url, NO_PROXY: noProxy }).proxy;
      expect(proxyFor(front.url, settings) !== null).toBe(way === "proxy");
    }
  }, 120_000);

  it("sends http:// through HTTP_PROXY only, and https:// through HTTP_PROXY when HTTPS_PROXY is unset", async () => {
    const stateDir = mkdtempSync(join(scratch, "http-"));
    const cpHost = new URL(cp.url).host;
    const count = (): [number, number] => [
      proxy.tunnelsTo(cpHost).length,
      proxy.tunnelsTo(frontHost()).length,
    ];
    const statuses = (r: DoctorReport) =>
      r.checks.filter((c) => c.id === "https" || c.id === "websocket").map((c) => c.status);

    let [plain, tls] = count();
    expect(statuses(await doctor({ http: proxy.url }, stateDir, cp.url))).toEqual(["ok", "ok"]);
    expect(count()).toEqual([plain + 2, tls]);

    [plain, tls] = count();
    expect(statuses(await doctor({ https: proxy.url }, stateDir, cp.url))).toEqual(["ok", "ok"]);
    expect(count()).toEqual([plain, tls]);

    [plain, tls] = count();
    expect(statuses(await doctor({ http: proxy.url }, stateDir))).toEqual(["ok", "ok"]);
    expect(count()).toEqual([plain, tls + 2]);
    // forgelet tunnels http:// too: the proxy never had a request to forward in clear.
    expect(proxy.forwarded).toEqual([]);
  }, 60_000);

  it("takes a proxy's credentials from the URL, never prints them, and names the 407 without them", async () => {
    const locked = await startConnectProxy({ user: "gpu", password: "s3cret" });
    try {
      const stateDir = mkdtempSync(join(scratch, "auth-"));
      const denied = await doctor({ https: locked.url }, stateDir);
      const d = Object.fromEntries(denied.checks.map((c) => [c.id, c]));
      expect(d.https).toMatchObject({ status: "fail" });
      expect(d.https?.detail).toContain("the proxy refused the tunnel: HTTP 407");
      expect(d.https?.fix).toContain("HTTPS_PROXY=http://USER:PASSWORD@PROXY:PORT");
      expect(d.websocket?.detail).toContain("refused the tunnel: HTTP 407");
      expect(denied.ok).toBe(false);

      const withAuth = locked.url.replace("http://", "http://gpu:s3cret@");
      const allowed = await doctor({ https: withAuth }, stateDir);
      const a = Object.fromEntries(allowed.checks.map((c) => [c.id, c]));
      expect(a.https?.status).toBe("ok");
      expect(a.websocket?.status).toBe("ok");
      expect(locked.tunnelsTo(frontHost())).toHaveLength(2);
      expect(JSON.stringify(allowed)).not.toContain("s3cret");
      expect(allowed.proxy).toBe(locked.url.replace("http://", "http://gpu:***@"));
    } finally {
      await locked.close();
    }
  }, 60_000);

  it("fails TLS verification of a private CA until NODE_EXTRA_CA_CERTS names it", async () => {
    const stateDir = mkdtempSync(join(scratch, "tls-"));
    const rep = await doctor({ ca: "" }, stateDir);
    const https = rep.checks.find((c) => c.id === "https");
    expect(https?.status).toBe("fail");
    expect(https?.detail).toMatch(
      /TLS verification failed \((UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_GET_ISSUER_CERT_LOCALLY)\)/,
    );
    expect(https?.fix).toContain("NODE_EXTRA_CA_CERTS=/path/to/ca.pem");
  });
});
