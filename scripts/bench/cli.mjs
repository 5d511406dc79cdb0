// The CLI's two promises, measured on this machine:
//   (a) `sf --help` cold start: median of RUNS runs of `node dist/sf.mjs --help`, next to a baseline of
//       RUNS runs of `node -e ""` measured in the same run (interleaved, so machine load hits both alike).
//       Target: the sf median ≤ 150 ms.
//   (b) bytes uploaded by an unchanged re-submit: a throwaway control plane (scripts/start.mjs, free port,
//       temp state, no agent), a project with one experiment whose workspace holds a 100 MB data file,
//       `sf submit --json` twice; the second one's `upload.bytes`. Target: 0.
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { median, round } from "./load.mjs";
import { freePort } from "./workerd.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const SF = join(root, "dist", "sf.mjs");
export const HELP_TARGET_MS = 150;
const WORKSPACE_MB = 100;

export function sfBuilt() {
  return existsSync(SF);
}

function timeRun(args, env) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { env, stdio: ["ignore", "ignore", "pipe"] });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`node ${args.join(" ")} exited ${r.status}: ${r.stderr}`);
  return ms;
}

export function benchHelp(RUNS) {
  const home = mkdtempSync(join(tmpdir(), "sf-bench-home-"));
  const env = { PATH: process.env.PATH ?? "", HOME: home, SF_HOME: home, NO_COLOR: "1" };
  const sfArgs = [SF, "--help"];
  const baseArgs = ["-e", ""];
  // One unmeasured run of each, so both start with the files in the page cache.
  timeRun(baseArgs, env);
  timeRun(sfArgs, env);
  const base = [];
  const sf = [];
  for (let i = 0; i < RUNS; i++) {
    base.push(timeRun(baseArgs, env));
    sf.push(timeRun(sfArgs, env));
  }
  rmSync(home, { recursive: true, force: true });
  const sfMedian = median(sf);
  const baseMedian = median(base);
  return {
    runs: RUNS,
    sf_median_ms: round(sfMedian),
    node_baseline_median_ms: round(baseMedian),
    ratio: round(sfMedian / baseMedian, 2),
    overhead_ms: round(sfMedian - baseMedian),
    target_ms: HELP_TARGET_MS,
    pass: sfMedian <= HELP_TARGET_MS,
  };
}

/** scripts/start.mjs in its own process group, exactly as `npm start` runs it. */
export async function startControlPlane(stateDir, { agent = false } = {}) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(
    process.execPath,
    [
      join(root, "scripts", "start.mjs"),
      "--port",
      String(port),
      "--state-dir",
      stateDir,
      ...(agent ? [] : ["--no-agent"]),
      "--quiet",
    ],
    {
      cwd: root,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, SF_BOOTSTRAP_ADMIN_TOKEN: "" },
    },
  );
  let out = "";
  child.stdout.on("data", (d) => {
    out += d;
  });
  child.stderr.on("data", (d) => {
    out += d;
  });
  const stop = async () => {
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {
      return;
    }
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      try {
        process.kill(-child.pid, 0);
      } catch {
        return;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      // gone
    }
  };
  await new Promise((ok, ko) => {
    const timer = setTimeout(() => ko(new Error(`the control plane did not start in 90 s:\n${out}`)), 90_000);
    const check = setInterval(() => {
      if (out.includes(`READY ${url}`)) {
        clearInterval(check);
        clearTimeout(timer);
        ok();
      }
    }, 50);
    child.on("exit", (code) => {
      clearInterval(check);
      clearTimeout(timer);
      ko(new Error(`scripts/start.mjs exited with ${code}:\n${out}`));
    });
  }).catch(async (err) => {
    await stop();
    throw err;
  });
  const token = /SF_BOOTSTRAP_ADMIN_TOKEN=(\S+)/.exec(readFileSync(join(stateDir, "dev.vars"), "utf8"))?.[1];
  return { url, token, stop };
}

function run(cmd, args, o) {
  const r = spawnSync(cmd, args, { ...o, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} exited ${r.status}:\n${r.stderr}${r.stdout}`);
  return r.stdout;
}

export async function benchResubmit() {
  const tmp = mkdtempSync(join(tmpdir(), "sf-bench-"));
  const cp = await startControlPlane(join(tmp, "state"));
  try {
    const home = join(tmp, "home");
    const env = {
      PATH: process.env.PATH ?? "",
      HOME: home,
      SF_HOME: home,
      NO_COLOR: "1",
      SF_SERVER: cp.url,
      SF_TOKEN: cp.token,
      GIT_AUTHOR_NAME: "bench",
      GIT_AUTHOR_EMAIL: "bench@example.org",
      GIT_COMMITTER_NAME: "bench",
      GIT_COMMITTER_EMAIL: "bench@example.org",
    };
    const project = join(tmp, "project");
    const sf = (args) => run(process.execPath, [SF, ...args], { cwd: project, env });
    run(process.execPath, [SF, "init", project], { cwd: tmp, env });
    sf(["new", "exp1", "--method", "python/charlm"]);
    // 100 MB of incompressible data in the experiment, committed with it.
    const data = randomBytes(1024 * 1024);
    const big = join(project, "experiments", "exp1", "data.bin");
    writeFileSync(big, "");
    for (let i = 0; i < WORKSPACE_MB; i++)
      writeFileSync(
        big,
        data.map((b) => b ^ i),
        { flag: "a" },
      );
    run("git", ["add", "-A"], { cwd: project, env });
    run("git", ["commit", "--quiet", "-m", "exp1"], { cwd: project, env });
    const submit = () => JSON.parse(sf(["submit", "exp1", "--profile", "h200:1", "--json"])).upload;
    const first = submit();
    const second = submit();
    return {
      workspace_mb: WORKSPACE_MB,
      first_upload: first,
      second_upload: second,
      bytes: second.bytes,
      target_bytes: 0,
      pass: second.bytes === 0,
    };
  } finally {
    await cp.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}
