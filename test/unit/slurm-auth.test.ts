/**
 * How forgelet authenticates to slurmrestd: the JWT from a file (re-read when it changes), sent as
 * X-SLURM-USER-NAME / X-SLURM-USER-TOKEN; a refused token is obtained again once before the refusal is
 * reported; an unreachable slurmrestd is "unavailable", not an auth failure. The server here is a
 * loopback stand-in answering as slurmrestd 22.05 does (401 without a token, 500 "Unspecified error"
 * for a token it cannot verify); the real daemon is exercised by `npm run test:slurm`.
 */
import { mkdtempSync, utimesSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SlurmAuthError, SlurmRest, SlurmUnavailable } from "../../forgelet/runtimes/slurm/rest.js";
import { parseToken, SlurmToken } from "../../forgelet/runtimes/slurm/token.js";

let server: Server;
let url = "";
let accepted = "good";
const seen: Array<{ user: string | undefined; token: string | undefined }> = [];

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res) => {
    const user = req.headers["x-slurm-user-name"] as string | undefined;
    const token = req.headers["x-slurm-user-token"] as string | undefined;
    seen.push({ user, token });
    res.setHeader("content-type", "application/json");
    if (!token) {
      res.statusCode = 401;
      return res.end("Authentication failure");
    }
    if (token !== accepted) {
      res.statusCode = 500;
      return res.end(JSON.stringify({ errors: [{ error: "Unspecified error", errno: -1 }] }));
    }
    res.end(JSON.stringify({ pings: [{ hostname: "ctl", ping: "UP" }], errors: [] }));
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server.close();
});

describe("the Slurm token", () => {
  it("reads SLURM_JWT=… (scontrol token's output) or a bare token", () => {
    expect(parseToken("SLURM_JWT=eyJabc.def.ghi\n")).toBe("eyJabc.def.ghi");
    expect(parseToken("  eyJabc.def.ghi  \n")).toBe("eyJabc.def.ghi");
  });

  it("sends the user and the file's token; a refused token is read again once, then the refusal is reported", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "sf-jwt-")), "slurm.jwt");
    writeFileSync(file, "SLURM_JWT=good\n");
    const rest = new SlurmRest({ url, user: "svc-starforge", token: new SlurmToken({ file }) });
    seen.length = 0;
    const ok = await rest.call("GET", "/slurm/v0.0.38/ping");
    expect(ok.status).toBe(200);
    expect(seen).toEqual([{ user: "svc-starforge", token: "good" }]);

    // The operator's cron job wrote a token slurmrestd does not accept: two tries, then a clear error.
    accepted = "renewed";
    writeFileSync(file, "SLURM_JWT=stale\n");
    utimesSync(file, new Date(), new Date(Date.now() + 1000));
    seen.length = 0;
    await expect(rest.call("GET", "/slurm/v0.0.38/ping")).rejects.toBeInstanceOf(SlurmAuthError);
    expect(seen.map((s) => s.token)).toEqual(["stale", "stale"]);

    // Renewed in the file: the next call uses it, without a restart.
    writeFileSync(file, "SLURM_JWT=renewed\n");
    utimesSync(file, new Date(), new Date(Date.now() + 2000));
    expect((await rest.call("GET", "/slurm/v0.0.38/ping")).status).toBe(200);
    expect(seen.at(-1)!.token).toBe("renewed");
  });

  it("a missing token file is a clear error naming it", async () => {
    const rest = new SlurmRest({ url, user: "u", token: new SlurmToken({ file: "/nonexistent/slurm.jwt" }) });
    await expect(rest.call("GET", "/slurm/v0.0.38/ping")).rejects.toThrow(
      /cannot read the Slurm token file \/nonexistent\/slurm.jwt/,
    );
  });

  it("an unreachable slurmrestd is unavailable (retried by the runtime), not an auth failure", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "sf-jwt-")), "slurm.jwt");
    writeFileSync(file, "SLURM_JWT=good\n");
    const rest = new SlurmRest({
      url: "unix:/nonexistent/slurmrestd.socket",
      user: "u",
      token: new SlurmToken({ file }),
    });
    await expect(rest.call("GET", "/slurm/v0.0.38/ping")).rejects.toBeInstanceOf(SlurmUnavailable);
  });
});
