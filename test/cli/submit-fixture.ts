/**
 * A real StarForge project in a temp dir for `sf submit`/`sf sweep` tests: starforge.yaml, an experiment
 * whose recipe.lock.json is built from the server's own catalog, common/, and a git history.
 */
import { spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { JobSpec } from "../../contract/jobspec.schema.js";
import { type ControlPlane, call } from "../support/control-plane.js";
import { newSfHome, type SfResult, sf } from "../support/sf.js";

export const sha256 = (data: string | Buffer) => `sha256:${createHash("sha256").update(data).digest("hex")}`;

/**
 * A fresh, well-formed but fake HuggingFace token (`hf_` + 34 alphanumerics), assembled at run time so
 * no source file here holds one.
 */
export function fakeHfToken(): string {
  const abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  const body = Array.from(randomBytes(34), (b) => abc[b % abc.length]).join("");
  return `hf${"_"}${body}`;
}

const GIT_ENV = {
  GIT_AUTHOR_NAME: "Ada",
  GIT_AUTHOR_EMAIL: "ada@example.org",
  GIT_COMMITTER_NAME: "Ada",
  GIT_COMMITTER_EMAIL: "ada@example.org",
};

export interface Project {
  dir: string;
  write: (rel: string, content: string | Buffer, mode?: number) => void;
  read: (rel: string) => string;
  git: (...args: string[]) => string;
  commit: (msg?: string) => string;
  /** `sf args…` in the project, logged in as the fixture's user. */
  sf: (args: string[], env?: Record<string, string>, input?: string) => Promise<SfResult>;
}

export interface Server {
  cp: ControlPlane;
  token: string;
  home: string;
}

/** An operator user on `cp`, and (optionally) an admin-created fleet with no nodes, where jobs stay QUEUED. */
export async function serverUser(cp: ControlPlane, name: string, emptyFleet?: string): Promise<Server> {
  const u = await call(cp, cp.adminToken, "POST", "/v1/users", { name, role: "operator" });
  if (u.status !== 201) throw new Error(`create user: ${JSON.stringify(u.body)}`);
  if (emptyFleet) {
    const f = await call(cp, cp.adminToken, "POST", "/v1/fleets", { name: emptyFleet, kind: "process" });
    if (f.status !== 201) throw new Error(`create fleet: ${JSON.stringify(f.body)}`);
  }
  return { cp, token: String(u.body.token), home: newSfHome() };
}

/** The lock `sf new` would write for `method` (latest version), from the live catalog. */
export async function lockFor(s: Server, method: string): Promise<Record<string, unknown>> {
  const cat = await call(s.cp, s.token, "GET", "/v1/catalog");
  type V = {
    version: string;
    digest: string;
    params: unknown;
    entrypoint: unknown;
    frameworks: Array<Record<string, unknown>>;
  };
  const recipe = (cat.body.recipes as Array<{ name: string; latest: string; versions: V[] }>).find(
    (r) => r.name === method,
  )!;
  const v = recipe.versions.find((x) => x.version === recipe.latest)!;
  const fw = v.frameworks[0]!;
  return {
    lock_version: 1,
    recipe: { name: method, version: v.version, digest: v.digest },
    framework: { kind: fw.kind, version: (fw.versions as string[])[0], runtime_id: fw.runtime_id },
    catalog_digest: cat.body.digest,
    locked_at: new Date().toISOString(),
    params: v.params,
    entrypoint: v.entrypoint,
  };
}

export async function makeProject(
  s: Server,
  o: {
    exp?: string;
    method?: string;
    config?: string;
    files?: Record<string, string>;
    fleet?: string;
    /** starforge.yaml's project name (default "demo"). */
    project?: string;
  } = {},
): Promise<Project> {
  const dir = mkdtempSync(join(tmpdir(), "sf-proj-"));
  const exp = o.exp ?? "exp1";
  const method = o.method ?? "python/charlm";
  const p: Project = {
    dir,
    write(rel, content, mode) {
      mkdirSync(dirname(join(dir, rel)), { recursive: true });
      writeFileSync(join(dir, rel), content);
      if (mode !== undefined) chmodSync(join(dir, rel), mode);
    },
    read: (rel) => readFileSync(join(dir, rel), "utf8"),
    git(...args) {
      const r = spawnSync("git", args, { cwd: dir, encoding: "utf8", env: { ...process.env, ...GIT_ENV } });
      if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
      return r.stdout.trim();
    },
    commit(msg = "change") {
      p.git("add", "-A");
      p.git("commit", "-q", "--allow-empty", "-m", msg);
      return p.git("rev-parse", "HEAD");
    },
    sf: (args, env, input) =>
      sf(args, {
        home: s.home,
        server: s.cp.url,
        cwd: dir,
        env: { SF_TOKEN: s.token, ...env },
        ...(input === undefined ? {} : { input }),
      }),
  };
  p.write(
    "starforge.yaml",
    `version: 1\nproject: ${o.project ?? "demo"}\n${o.fleet ? `fleet: ${o.fleet}\n` : ""}`,
  );
  p.write(".gitignore", "outputs/\n*.ignored\n");
  p.write(
    `experiments/${exp}/config.yaml`,
    o.config ?? `method: ${method}\nhyperparams:\n  max_steps: 20\n  checkpoint_every: 10\n`,
  );
  p.write(`experiments/${exp}/recipe.lock.json`, `${JSON.stringify(await lockFor(s, method), null, 2)}\n`);
  p.write("common/util.py", `# shared helper ${dir}\n`);
  p.write("configs/base.yaml", "shared: true\n");
  p.write("notes/private.txt", "not in the whitelist\n");
  for (const [rel, content] of Object.entries(o.files ?? {})) p.write(rel, content);
  p.git("-c", "init.defaultBranch=main", "init", "-q");
  p.commit("init");
  return p;
}

/** HEAD /v1/blobs/:digest as an admin: 200 if the server has the blob, 404 if not. */
export async function blobStatus(cp: ControlPlane, digest: string): Promise<number> {
  const res = await fetch(`${cp.url}/v1/blobs/${digest}`, {
    method: "HEAD",
    headers: { authorization: `Bearer ${cp.adminToken}` },
  });
  return res.status;
}

export interface JobDetail {
  job: { id: string; status: string; spec: JobSpec };
}

export async function jobDetail(s: Server, id: string): Promise<JobDetail> {
  return (await call(s.cp, s.token, "GET", `/v1/jobs/${id}`)).body as unknown as JobDetail;
}

export async function jobCount(s: Server): Promise<number> {
  return ((await call(s.cp, s.token, "GET", "/v1/jobs?limit=200")).body.jobs as unknown[]).length;
}
