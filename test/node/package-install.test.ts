/**
 * `npm run pack:cli` makes a package that installs like any CLI: `npm install -g` of its tarball (offline: it
 * has no dependencies) puts sf and forgelet on PATH, and they work from a directory outside this repository,
 * with a PATH holding only the install's bin and node, against a real control plane. The installed tree holds
 * exactly the tarball's files and nothing names this checkout, so nothing of the repository is read at run time.
 * Uses dist/ as `npm run build` left it (the node project's tests run after a build).
 */
import { spawnSync } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ControlPlane, call } from "../support/control-plane.js";
import { newFleet, newUser, sharedControlPlane } from "../support/shared-control-plane.js";

const ROOT = resolve(import.meta.dirname, "../..");
const VERSION = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
const work = mkdtempSync(join(tmpdir(), "sf-package-install-"));
const prefix = join(work, "prefix");
const home = join(work, "home");
const outside = join(work, "somewhere");
const nodeBin = join(work, "node-bin");
const installed = join(prefix, "lib", "node_modules", "starforge-cli");
let tarball = "";
let cp: ControlPlane | null = null;

beforeAll(async () => {
  for (const d of [home, outside, nodeBin]) mkdirSync(d, { recursive: true });
  symlinkSync(process.execPath, join(nodeBin, "node"));
  const pack = spawnSync(
    process.execPath,
    [join(ROOT, "scripts", "pack.mjs"), "--skip-build", "--out-dir", work],
    {
      cwd: ROOT,
      encoding: "utf8",
    },
  );
  expect(pack.status, `${pack.stdout}${pack.stderr}`).toBe(0);
  tarball = /^TARBALL (.+)$/m.exec(pack.stdout)?.[1] ?? "";
  const install = spawnSync(
    "npm",
    ["install", "-g", "--prefix", prefix, "--offline", "--no-audit", "--no-fund", tarball],
    { cwd: outside, encoding: "utf8", env: { ...process.env, npm_config_cache: join(work, "npm-cache") } },
  );
  expect(install.status, `${install.stdout}${install.stderr}`).toBe(0);
  cp = sharedControlPlane();
}, 180_000);

afterAll(async () => {
  rmSync(work, { recursive: true, force: true });
});

/** Runs an installed bin as a user would: from outside the repository, PATH = the install's bin and node. */
function bin(name: string, args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(name, args, {
    cwd: outside,
    encoding: "utf8",
    timeout: 60_000,
    env: {
      PATH: `${join(prefix, "bin")}:${nodeBin}`,
      HOME: home,
      SF_HOME: join(home, ".sf"),
      NO_COLOR: "1",
      ...env,
    },
  });
  return { code: r.status, stdout: r.stdout ?? "", stderr: r.stderr ?? "", error: r.error };
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

describe("the sf and forgelet package", () => {
  it("installs only its two bins, no dependencies, and only the tarball's files", () => {
    const pkg = JSON.parse(readFileSync(join(installed, "package.json"), "utf8")) as Record<string, unknown>;
    expect(pkg.version).toBe(VERSION);
    expect(pkg.bin).toEqual({ sf: "sf.mjs", forgelet: "forgelet.mjs" });
    expect(pkg.dependencies).toBeUndefined();
    expect(pkg.engines).toEqual({ node: ">=20" });
    expect(readdirSync(join(prefix, "bin")).sort()).toEqual(["forgelet", "sf"]);
    expect(readdirSync(join(prefix, "lib", "node_modules"))).toEqual(["starforge-cli"]);

    const listed = spawnSync("tar", ["tzf", tarball], { encoding: "utf8" })
      .stdout.split("\n")
      .filter((l) => l && !l.endsWith("/"))
      .map((l) => l.replace(/^package\//, ""))
      .sort();
    expect(filesUnder(installed)).toEqual(listed);
    expect(listed).toContain("sf.mjs");
    expect(listed).toContain("forgelet.mjs");
    expect(
      listed.every((f) => ["package.json", "sf.mjs", "forgelet.mjs"].includes(f) || f.startsWith("chunks/")),
    ).toBe(true);
    for (const f of listed) expect(readFileSync(join(installed, f), "utf8")).not.toContain(ROOT);
    for (const name of ["sf", "forgelet"]) {
      expect(dirname(realpathSync(join(prefix, "bin", name)))).toBe(realpathSync(installed));
    }
  });

  it("prints its version and help from outside the repository", () => {
    const v = bin("sf", ["--version"]);
    expect(v.stdout.trim(), `${v.stderr}${v.error ?? ""}`).toBe(VERSION);
    const help = bin("sf", ["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: sf [options] [command]");
    expect(bin("forgelet", ["--version"]).stdout.trim()).toBe(VERSION);
  });

  it("logs in to a real control plane and lists jobs", async () => {
    const url = cp?.url ?? "";
    // A user of this file's own: the shared control plane holds other files' jobs.
    const user = await newUser(cp!, "pkg");
    const login = bin("sf", ["login", "--server", url, "--token", user.token]);
    expect(login.code, `${login.stdout}${login.stderr}`).toBe(0);
    const ls = bin("sf", ["job", "ls", "--json"]);
    expect(ls.code, `${ls.stdout}${ls.stderr}`).toBe(0);
    expect(JSON.parse(ls.stdout)).toMatchObject({ jobs: [] });
    const me = await call({ url }, user.token, "GET", "/v1/me");
    expect(me.status).toBe(200);
    expect((me.body.user as { name: string }).name).toBe(user.name);
  });

  it("enrolls forgelet and loads its docker runtime from the package (dockerode bundled)", async () => {
    const fleet = await newFleet(cp!, "pkg");
    const { body } = await call(
      { url: cp?.url ?? "" },
      cp?.adminToken ?? "",
      "POST",
      `/v1/fleets/${fleet}/enrollment-tokens`,
      {},
    );
    const state = join(home, "forgelet");
    const enroll = bin("forgelet", [
      "enroll",
      "--server",
      cp?.url ?? "",
      "--token",
      String(body.token),
      "--state-dir",
      state,
    ]);
    expect(enroll.code, `${enroll.stdout}${enroll.stderr}`).toBe(0);
    // No daemon at this socket: the runtime loads, then says docker is unreachable.
    const run = bin(
      "forgelet",
      ["run", "--runtime", "docker", "--state-dir", state, "--server", cp?.url ?? ""],
      {
        DOCKER_HOST: `unix://${join(work, "no-docker.sock")}`,
      },
    );
    const out = `${run.stdout}${run.stderr}`;
    expect(run.code, out).not.toBe(0);
    expect(out).toMatch(/docker/i);
    expect(out).not.toMatch(/Cannot find (module|package)/);
  });
});
