/**
 * Tier 3: `sf secret set|ls|rm` and `sf submit --secret` on a fleet of this file's own (the shared control
 * plane, a real forgelet of this file's, process runtime). A job that prints its secret has it stored as
 * `***`, and the value is in no file the control plane or the agent writes: not the D1 ledger or a Durable
 * Object's storage (webhook payloads included), not the agent's journal or log, not the run directory
 * while the job runs.
 */
import { type Dirent, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call } from "../support/control-plane.js";
import type { ForgeletProc } from "../support/forgelet.js";
import { waitForStatus } from "../support/jobs.js";
import { fleetWithAgent, sharedControlPlane, unique } from "../support/shared-control-plane.js";
import { makeProject, type Project, type Server, serverUser } from "./submit-fixture.js";

const VALUE = "wandb-9f3c2a7e41d84b6c";
let s: Server;
let p: Project;
/** This file's user, experiment (its jobs' name) and project. */
const SIA = unique("sia");
const EXP = unique("exp");
const PROJECT = unique("secrets");
/** This file's agent, in a fleet of its own: the control plane's state is shared, its state is not. */
let agent: ForgeletProc | undefined;
/** The webhook the test adds (removed afterwards: nobody listens, so it would be retried on and on). */
let hook = "";

const TRAIN = `#!/usr/bin/env bash
set -euo pipefail
echo "key=$WANDB_API_KEY"
echo "ready"
# Keep running while the test looks at the run directory.
for i in $(seq 1 100); do [ -f "$FORGE_EXP_DIR/../../release" ] && break; sleep 0.1; done
echo "bye"
`;

beforeAll(async () => {
  const cp = sharedControlPlane();
  const own = await fleetWithAgent(cp, "secrets", { gpus: 8 });
  agent = own.agent;
  s = await serverUser(cp, SIA);
  p = await makeProject(s, {
    fleet: own.fleet,
    project: PROJECT,
    exp: EXP,
    method: "custom/custom",
    config: "method: custom/custom\n",
    files: { [`experiments/${EXP}/train.sh`]: TRAIN },
  });
  p.write(`experiments/${EXP}/train.sh`, TRAIN, 0o755);
  p.commit("train.sh");
});

afterAll(async () => {
  if (hook) await call(s.cp, s.token, "DELETE", `/v1/webhooks/${hook}`);
  await agent?.dispose();
});

/** Every file under `dir` (recursively) whose bytes contain `needle`. */
function filesContaining(dir: string, needle: string): string[] {
  const hits: string[] = [];
  const walk = (d: string) => {
    // A run's scratch directory may go as the run ends, between its parent's listing and its own.
    let entries: Dirent[];
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
      throw err;
    }
    for (const e of entries) {
      const path = join(d, e.name);
      if (e.isDirectory()) walk(path);
      else if (e.isFile()) {
        // The agent removes a run's scratch files as the run ends: one gone since the listing holds nothing.
        let bytes: Buffer;
        try {
          if (statSync(path).size >= 512 * 1024 * 1024) continue;
          bytes = readFileSync(path);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === "ENOENT") continue;
          throw err;
        }
        if (bytes.includes(needle)) hits.push(path);
      }
    }
  };
  walk(dir);
  return hits;
}

async function storedLines(id: string): Promise<string[]> {
  const r = await call(s.cp, s.token, "GET", `/v1/jobs/${id}/logs?limit=1000`);
  return (r.body.lines as Array<{ line: string }>).map((l) => l.line);
}

describe("sf secret", () => {
  it("refuses a bad name and an empty value, and never takes a value from argv", async () => {
    const bad = await p.sf(["secret", "set", "wandb_key"], {});
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("BAD_SECRET_NAME");
    const empty = await p.sf(["secret", "set", "WANDB_API_KEY"]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain("EMPTY_SECRET");
    const argv = await p.sf(["secret", "set", "WANDB_API_KEY", VALUE]);
    expect(argv.code).toBe(2);
  });

  it("sets a secret from stdin, lists its name only, and a job given it with --secret prints *** in its stored logs", async () => {
    const rx = await call(s.cp, s.token, "POST", "/v1/webhooks", {
      url: `http://127.0.0.1:9/${SIA}`,
      events: ["*"],
    });
    expect(rx.status).toBe(201);
    hook = (rx.body.webhook as { id: string }).id;
    const set = await p.sf(["secret", "set", "WANDB_API_KEY"], {}, `${VALUE}\n`);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout + set.stderr).not.toContain(VALUE);
    const ls = await p.sf(["secret", "ls", "--json"]);
    expect(JSON.parse(ls.stdout).secrets).toEqual([
      expect.objectContaining({ name: "WANDB_API_KEY", scope: "user", set_by: SIA }),
    ]);
    const table = await p.sf(["secret", "ls"]);
    expect(table.stdout).toMatch(/^NAME\s+SCOPE\s+SET BY\s+UPDATED/m);
    expect(table.stdout).not.toContain(VALUE);

    const missing = await p.sf(["submit", EXP, "--profile", "h200:1", "--secret", "NOT_SET_HERE"]);
    expect(missing.code).toBe(5);
    expect(missing.stderr).toContain("SECRET_MISSING");

    const sub = await p.sf(["submit", EXP, "--profile", "h200:1", "--secret", "WANDB_API_KEY", "--json"]);
    expect(sub.code, sub.stderr).toBe(0);
    const id = JSON.parse(sub.stdout).job.id as string;
    const deadline = Date.now() + 60_000;
    while (!(await storedLines(id)).includes("ready")) {
      if (Date.now() > deadline) throw new Error("the job never printed ready");
      await new Promise((r) => setTimeout(r, 200));
    }
    // While it runs: the value is in no file of the control plane's or the agent's state, run directory
    // included (the runner masks what the job prints before echoing it into the runtime's log), nor in
    // the agent's log (its output, kept by the fixture).
    expect(filesContaining(s.cp.stateDir, VALUE)).toEqual([]);
    expect(filesContaining(agent!.stateDir, VALUE)).toEqual([]);
    expect(agent!.log()).not.toContain(VALUE);
    const runs = join(agent!.stateDir, "runs");
    const runDir = readdirSync(runs).find((d) => d.endsWith("-r0"));
    expect(runDir).toBeDefined();
    const processLog = readFileSync(join(runs, runDir!, ".starforge", "process.log"), "utf8");
    expect(processLog).toContain("key=***");
    writeFileSync(join(runs, runDir!, "release"), "");

    await waitForStatus(s.cp, s.token, id, ["SUCCEEDED"], 60_000);
    expect(await storedLines(id)).toEqual(["key=***", "ready", "bye"]);
    // Webhook deliveries were made for the job (and failed: nobody listens), their payloads stored.
    const deliveries = await call(
      s.cp,
      s.token,
      "GET",
      `/v1/webhooks/${(rx.body.webhook as { id: string }).id}/deliveries`,
    );
    expect((deliveries.body.deliveries as unknown[]).length).toBeGreaterThan(0);
    expect(filesContaining(s.cp.stateDir, VALUE)).toEqual([]);
    expect(filesContaining(agent!.stateDir, VALUE)).toEqual([]);
    expect(agent!.log()).not.toContain(VALUE);

    const rm = await p.sf(["secret", "rm", "WANDB_API_KEY"]);
    expect(rm.code, rm.stderr).toBe(0);
    expect(JSON.parse((await p.sf(["secret", "ls", "--json"])).stdout).secrets).toEqual([]);
    const gone = await p.sf(["secret", "rm", "WANDB_API_KEY"]);
    expect(gone.code).toBe(4);
  });
});
