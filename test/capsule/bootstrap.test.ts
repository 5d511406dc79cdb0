/**
 * bootstrap.sh (and the runner's own re-check) refusing to start: every CAPSULE_EXIT code, with a
 * one-line reason, and proof that the training never ran (a marker file its script would create).
 */
import { spawn, spawnSync } from "node:child_process";
import { appendFileSync, existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CAPSULE_EXIT } from "../../contract/capsule.schema.js";
import { ingestServerForFile, MARKER_SCRIPT } from "./support/file-server.js";
import {
  BASH,
  CAPSULE_DIR,
  type Finished,
  makeRunDir,
  PYTHON,
  type RunDir,
  type RunDirOptions,
  rankEnv,
  runBootstrap,
  tempDir,
  toolDir,
  which,
} from "./support/run-dir.js";

const TOKEN = "tok-bootstrap-test";
const server = ingestServerForFile(TOKEN);

function markerRun(extra: Partial<RunDirOptions> = {}): RunDir {
  return makeRunDir({ endpoint: server.endpoint, workspace: { "train.sh": MARKER_SCRIPT }, ...extra });
}

async function boot(run: RunDir, env: Record<string, string> = {}): Promise<Finished> {
  return runBootstrap(run, { ...rankEnv(run, server.endpoint, TOKEN), ...env });
}

/** The run was refused: the code, one `starforge-*: NAME: reason` line, and no training at all. */
function expectRefused(run: RunDir, res: Finished, name: keyof typeof CAPSULE_EXIT, reason: RegExp): void {
  expect(res.code, res.stderr).toBe(CAPSULE_EXIT[name]);
  const line = res.stderr.split("\n").find((l) => l.includes(`: ${name}: `));
  expect(line, res.stderr).toMatch(/^starforge-(bootstrap|runner): /);
  expect(line).toMatch(reason);
  expect(existsSync(run.path("ran"))).toBe(false);
  expect(res.stdout).not.toContain("trained");
  expect(server.lifecycle().map((e) => e.event)).not.toContain("started");
}

describe("bootstrap.sh: the happy path and the image's hashing tools", () => {
  it("runs the training when everything checks out", async () => {
    const run = markerRun();
    const res = await boot(run);
    expect(res.code, res.stderr).toBe(0);
    expect(existsSync(run.path("ran"))).toBe(true);
  });

  it("uses sha256sum, else shasum -a 256, else python3's hashlib, and each catches a bad file", async () => {
    // Wrappers that leave a trace, so the test knows which tool did the hashing.
    const traced = (tool: string, real: string): string => {
      const dir = tempDir("sf-wrap-");
      const path = join(dir, tool);
      writeFileSync(path, `#!${BASH}\necho >> "${dir}/used"\nexec ${real} "$@"\n`, { mode: 0o755 });
      return path;
    };
    const cases: [string, Record<string, string>][] = [
      [
        "sha256sum",
        { sha256sum: traced("sha256sum", which("sha256sum")), shasum: traced("shasum", "false") },
      ],
      ["shasum", { shasum: traced("shasum", which("shasum")) }],
      ["python", {}],
    ];
    for (const [tool, tools] of cases) {
      const path = toolDir({ bash: BASH, python3: PYTHON, touch: which("touch"), ...tools });
      const good = markerRun();
      expect((await boot(good, { PATH: path })).code, tool).toBe(0);
      expect(existsSync(good.path("ran"))).toBe(true);
      for (const [name, wrapper] of Object.entries(tools)) {
        expect(existsSync(join(wrapper, "..", "used")), `${name} used for ${tool}`).toBe(name === tool);
      }
      server.requests.length = 0;
      const bad = markerRun();
      appendFileSync(bad.path("workspace/exp/train.sh"), "# tampered\n");
      expectRefused(bad, await boot(bad, { PATH: path }), "DIGEST_MISMATCH", /workspace\/exp\/train\.sh/);
    }
  });
});

describe("DIGEST_MISMATCH (65)", () => {
  it("a workspace file changed after the manifest was written", async () => {
    const run = markerRun();
    appendFileSync(run.path("workspace/exp/train.sh"), "echo injected\n");
    expectRefused(run, await boot(run), "DIGEST_MISMATCH", /workspace\/exp\/train\.sh: expected sha256:/);
  });

  it("runner.pyz changed", async () => {
    const run = markerRun();
    appendFileSync(run.path(`${CAPSULE_DIR}/runner.pyz`), "x");
    expectRefused(run, await boot(run), "DIGEST_MISMATCH", /\.starforge\/capsule\/runner\.pyz: expected/);
  });

  it("a listed file is missing", async () => {
    const run = markerRun({ workspace: { "train.sh": MARKER_SCRIPT, "data.txt": "abc" } });
    rmSync(run.path("workspace/exp/data.txt"));
    expectRefused(run, await boot(run), "DIGEST_MISMATCH", /workspace\/exp\/data\.txt: missing/);
  });

  it("the runner checks again when started without bootstrap.sh, and reports why it refused", async () => {
    const run = markerRun();
    appendFileSync(run.path("workspace/exp/train.sh"), "echo injected\n");
    // Async, not spawnSync: the ingest server lives on this event loop and must answer meanwhile.
    const child = spawn(PYTHON, [run.path(`${CAPSULE_DIR}/runner.pyz`), "run"], {
      env: rankEnv(run, server.endpoint, TOKEN),
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    const code = await new Promise<number | null>((ok) => child.on("close", ok));
    expectRefused(run, { code, signal: null, stdout, stderr }, "DIGEST_MISMATCH", /train\.sh: expected/);
    expect(server.lifecycle()).toMatchObject([{ event: "failed", exit_code: 65 }]);
  });
});

describe("NO_PYTHON (66)", () => {
  it("no python3 or python on PATH", async () => {
    const run = markerRun();
    const path = toolDir({ sha256sum: which("sha256sum") });
    expectRefused(run, await boot(run, { PATH: path }), "NO_PYTHON", /no python3 or python on PATH/);
  });

  it("the image's Python is older than requires.python", async () => {
    const run = markerRun({ requiresPython: "99.1" });
    const version = spawnSync(PYTHON, ["-c", "import platform; print(platform.python_version())"], {
      encoding: "utf8",
    }).stdout.trim();
    expectRefused(run, await boot(run), "NO_PYTHON", new RegExp(`>= 99\\.1 .*found Python ${version} at`));
  });
});

describe("BAD_MANIFEST (68)", () => {
  it("capsule.json is missing", async () => {
    const run = markerRun();
    rmSync(run.path(`${CAPSULE_DIR}/capsule.json`));
    expectRefused(run, await boot(run), "BAD_MANIFEST", /cannot read .*capsule\.json/);
  });

  it("capsule.json is not JSON", async () => {
    const run = markerRun();
    writeFileSync(run.path(`${CAPSULE_DIR}/capsule.json`), "{ not json");
    expectRefused(run, await boot(run), "BAD_MANIFEST", /not valid JSON/);
  });

  it("capsule.json is of another version", async () => {
    const run = markerRun({ mutate: (m) => Object.assign(m, { capsule_version: 2 }) });
    expectRefused(run, await boot(run), "BAD_MANIFEST", /capsule_version is 2/);
  });

  it("a file path that escapes the run directory", async () => {
    const run = markerRun({
      mutate: (m) => {
        (m.files as Record<string, string>)["../outside"] = `sha256:${"0".repeat(64)}`;
      },
    });
    expectRefused(run, await boot(run), "BAD_MANIFEST", /'\.\.\/outside' is not a safe path/);
  });

  it("an entrypoint kind the runner does not know (caught by the runner, after bootstrap)", async () => {
    const run = markerRun({
      mutate: (m) => {
        (m.recipe as Record<string, unknown>).entrypoint = { kind: "notebook", path: "x.ipynb" };
      },
    });
    expectRefused(run, await boot(run), "BAD_MANIFEST", /entrypoint\.kind must be 'script' or 'python'/);
  });
});
