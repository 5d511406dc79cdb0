/**
 * Tier 3: what people set about failures through `sf` (issue 29), on the shared control plane with one
 * forgelet of this file's own (process runtime) that really runs the jobs:
 * - an experiment's config.yaml `lifecycle` (on_anomaly, the hang bounds, the placement and preemption
 *   waits) reaches the job's spec, and a bad value is refused naming the file and the key;
 * - `sf admin fleet diagnosis`: a fleet's own rules shown, replaced from a file, cleared; a pattern that does
 *   not compile is refused before any request; a job failing with a line a rule matches gets its class;
 * - `sf job logs -f` on a job whose failure its diagnosis retries (NETWORK) follows it into the next attempt,
 *   which succeeds, and exits 0.
 * The retry comes after the plane's 30 s backoff: that follow starts in beforeAll and is awaited last, so
 * the wait overlaps the other cases.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { awaitingRetry } from "../../cli/impl/job/follow.js";
import type { JobDetailResponse } from "../../contract/responses.schema.js";
import { type ControlPlane, call } from "../support/control-plane.js";
import type { ForgeletProc } from "../support/forgelet.js";
import { waitForStatus } from "../support/jobs.js";
import { newSfHome, type SfEnv, type SfResult, sf, sfJson } from "../support/sf.js";
import { fleetWithAgent, sharedControlPlane, unique } from "../support/shared-control-plane.js";
import { jobCount, jobDetail, makeProject, type Project, type Server, serverUser } from "./submit-fixture.js";

const JOB_ID = /job_[0-9a-z]{26}/;
const NETWORK_LINE =
  "requests.exceptions.ConnectionError: HTTPSConnectionPool(host='api.wandb.ai', port=443): Max retries exceeded with url: /graphql (Caused by NewConnectionError('<urllib3.connection.HTTPSConnection object at 0x7f8b5c1d2e90>: Failed to establish a new connection: [Errno 101] Network is unreachable'))";
const LUSTRE_LINE = "OSError: [Errno 116] Lustre: /scratch/ds/shard-0007.bin: Stale file handle";

const EXPS = { flaky: unique("flaky"), lustre: unique("lustre"), exit42: unique("exit42") };
/** The flaky job's lifecycle in its config.yaml: every key the JobSpec has since issue 29, and older ones. */
const FLAKY_LIFECYCLE = {
  max_retries: 1,
  on_anomaly: "stop",
  hang_factor: 4,
  hang_floor_seconds: 60,
  placement_timeout_seconds: 3600,
  preemption_wait_seconds: 0,
};

/** A fleet's rules as an admin writes them (docs/operations.md "A fleet's own rules"). */
const RULES_YAML = `rules:
  - pattern: "(?i)lustre.*stale file handle"
    class: FILE_NOT_FOUND
    hint: "The scratch mount went away: ask #storage."
    action: no_retry
  - exit_code: 42
    class: DISK_FULL
actions:
  DISK_FULL: no_retry
`;
const RULES = {
  rules: [
    {
      pattern: "(?i)lustre.*stale file handle",
      class: "FILE_NOT_FOUND",
      hint: "The scratch mount went away: ask #storage.",
      action: "no_retry",
    },
    { exit_code: 42, class: "DISK_FULL" },
  ],
  actions: { DISK_FULL: "no_retry" },
};

let cp: ControlPlane;
let s: Server;
let p: Project;
let admin: SfEnv;
let fleet = "";
let agent: ForgeletProc | undefined;
let files = "";
let flaky = "";
/** `sf job logs -f` of the flaky job, started as soon as it was submitted. */
let follow: Promise<SfResult>;

interface Diagnosis {
  class: string;
  summary: string;
  hint: string;
  rule: number | null;
  line: { text: string } | null;
  action: { policy: string; retried: boolean; why: string };
}
interface Detail {
  job: { status: string };
  diagnosis: Diagnosis | null;
  runs: Array<{ id: string; attempt: number; status: string; diagnosis: Diagnosis | null }>;
}
const detail = async (id: string) =>
  (await call(s.cp, s.token, "GET", `/v1/jobs/${id}`)).body as unknown as Detail;

async function diagnosed(id: string): Promise<Diagnosis> {
  await waitForStatus(s.cp, s.token, id, ["FAILED"], 90_000);
  const deadline = Date.now() + 30_000;
  for (;;) {
    const d = await detail(id);
    if (d.diagnosis) return d.diagnosis;
    if (Date.now() > deadline) throw new Error(`${id}: no diagnosis; last: ${JSON.stringify(d)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const bash = (body: string) => `#!/usr/bin/env bash\nset -uo pipefail\n${body}`;
const rulesFile = (name: string, text: string) => {
  const path = join(files, name);
  writeFileSync(path, text);
  return path;
};

beforeAll(async () => {
  cp = sharedControlPlane();
  admin = { home: newSfHome(), server: cp.url, env: { SF_TOKEN: cp.adminToken } };
  ({ fleet, agent } = await fleetWithAgent(cp, "rules", { gpus: 8 }));
  s = await serverUser(cp, unique("rosa"));
  files = mkdtempSync(join(tmpdir(), "sf-rules-"));
  // The first attempt leaves a mark outside its run's directory and fails as a lost connection does; the
  // retry finds the mark and succeeds.
  const mark = join(files, "attempted");
  const flakySh = bash(`if [ -e '${mark}' ]; then echo "attempt 2: the service answers"; exit 0; fi
touch '${mark}'
echo "attempt 1: calling the service"
sleep 1
echo "${NETWORK_LINE.replace(/"/g, '\\"')}" >&2
exit 1
`);
  const lifecycle = Object.entries(FLAKY_LIFECYCLE)
    .map(([k, v]) => `  ${k}: ${v}\n`)
    .join("");
  p = await makeProject(s, {
    fleet,
    exp: EXPS.flaky,
    method: "custom/custom",
    config: `method: custom/custom\nlifecycle:\n${lifecycle}`,
    files: {
      [`experiments/${EXPS.flaky}/train.sh`]: flakySh,
      [`experiments/${EXPS.lustre}/train.sh`]: bash(
        `echo "reading shards"\necho "${LUSTRE_LINE}" >&2\nexit 1\n`,
      ),
      [`experiments/${EXPS.exit42}/train.sh`]: bash("exit 42\n"),
    },
  });
  for (const exp of [EXPS.lustre, EXPS.exit42]) {
    p.write(`experiments/${exp}/config.yaml`, "method: custom/custom\nlifecycle:\n  max_retries: 0\n");
    p.write(`experiments/${exp}/recipe.lock.json`, p.read(`experiments/${EXPS.flaky}/recipe.lock.json`));
  }
  p.commit("three jobs");
  const r = await p.sf(["submit", EXPS.flaky, "--profile", "h200:1"]);
  expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
  flaky = JOB_ID.exec(r.stdout)![0];
  follow = sf(["job", "logs", flaky, "-f"], {
    home: s.home,
    server: cp.url,
    cwd: p.dir,
    env: { SF_TOKEN: s.token },
    timeoutMs: 170_000,
  });
  // Awaited by its own case; a rejection (sf's timeout) must not go unhandled meanwhile.
  follow.catch(() => undefined);
});

afterAll(async () => {
  await agent?.dispose();
});

describe("an experiment's lifecycle in config.yaml", () => {
  it("reaches the job's spec key for key: on_anomaly, the hang bounds, the placement and preemption waits", async () => {
    const { job } = await jobDetail(s, flaky);
    expect(job.spec.lifecycle).toEqual({ ...FLAKY_LIFECYCLE, retry_on_user_failure: false });
  });

  it("is refused with BAD_CONFIG (exit 5) naming the file and each bad key, and nothing is submitted", async () => {
    const before = await jobCount(s);
    const config = `experiments/${EXPS.lustre}/config.yaml`;
    const good = p.read(config);
    p.write(
      config,
      "method: custom/custom\nlifecycle:\n  on_anomaly: pause\n  hang_factor: 1\n  hang_floor: 30\n",
    );
    try {
      const r = await p.sf(["submit", EXPS.lustre, "--profile", "h200:1", "--allow-dirty"]);
      expect(r.code, r.stderr).toBe(5);
      expect(r.stderr).toContain(`${config} is invalid: `);
      expect(r.stderr).toMatch(/lifecycle\.on_anomaly: Invalid option: expected one of "warn"\|"stop"/);
      expect(r.stderr).toMatch(/lifecycle\.hang_factor: Too small: expected number to be >=2/);
      expect(r.stderr).toMatch(/lifecycle: Unrecognized key: "hang_floor"/);
      expect(r.stderr).toContain("[BAD_CONFIG]");
      expect(await jobCount(s)).toBe(before);
    } finally {
      p.write(config, good);
    }
  });
});

describe("sf admin fleet diagnosis", () => {
  it("sets the rules from a YAML file, shows them (table and --json) and clears them", async () => {
    const none = await sfJson<{ diagnosis: unknown }>(["admin", "fleet", "diagnosis", fleet], admin);
    expect(none.diagnosis).toEqual({ rules: [], actions: {} });
    const empty = await sf(["admin", "fleet", "diagnosis", fleet], admin);
    expect(empty.stdout).toContain(`${fleet}: no rules of its own; the built-in table decides`);

    const set = await sf(
      ["admin", "fleet", "diagnosis", fleet, "--set", rulesFile("rules.yaml", RULES_YAML)],
      admin,
    );
    expect(set.code, set.stderr).toBe(0);
    expect(set.stderr).toContain(
      `✓ ${fleet}: 2 rules, 1 class action; failures from now on are diagnosed with them`,
    );
    const fleetView = await call(cp, cp.adminToken, "GET", `/v1/fleets/${fleet}`);
    expect((fleetView.body.fleet as { diagnosis: unknown }).diagnosis).toEqual(RULES);

    const shown = await sf(["admin", "fleet", "diagnosis", fleet], admin);
    expect(shown.code, shown.stderr).toBe(0);
    const lines = shown.stdout.split("\n");
    expect(lines[0]).toBe(`${fleet}: 2 rules, tried in order before the built-in ones`);
    expect(lines[1]).toMatch(/^RULE\s+MATCH\s+CLASS\s+ACTION\s+HINT$/);
    expect(lines[2]).toMatch(
      /^0\s+\/\(\?i\)lustre\.\*stale file handle\/\s+FILE_NOT_FOUND\s+no_retry\s+The scratch mount went away: ask #storage\.$/,
    );
    // Its action and hint are its class's: the fleet's action for DISK_FULL.
    expect(lines[3]).toMatch(/^1\s+exit code 42\s+DISK_FULL\s+no_retry \(class\)\s+\(class\)$/);
    expect(shown.stdout).toMatch(
      /\nActions on this fleet\nCLASS\s+ACTION\s+BUILT-IN\nDISK_FULL\s+no_retry\s+retry\n/,
    );
    expect(
      (await sfJson<{ diagnosis: unknown }>(["admin", "fleet", "diagnosis", fleet], admin)).diagnosis,
    ).toEqual(RULES);

    const cleared = await sfJson<{ diagnosis: unknown }>(
      ["admin", "fleet", "diagnosis", fleet, "--clear"],
      admin,
    );
    expect(cleared.diagnosis).toEqual({ rules: [], actions: {} });
    const after = await call(cp, cp.adminToken, "GET", `/v1/fleets/${fleet}`);
    expect((after.body.fleet as { diagnosis: unknown }).diagnosis).toEqual({ rules: [], actions: {} });

    // The same rules as JSON, for the cases below.
    const json = await sf(
      ["admin", "fleet", "diagnosis", fleet, "--set", rulesFile("rules.json", JSON.stringify(RULES))],
      admin,
    );
    expect(json.code, json.stderr).toBe(0);
  });

  it("refuses a pattern that does not compile before any request (INVALID_RULES, exit 5), naming the rule", async () => {
    const bad = rulesFile(
      "bad.yaml",
      'rules:\n  - pattern: "NCCL WARN"\n    class: NCCL_ERROR\n  - pattern: "(unclosed"\n    class: NETWORK\n  - pattern: ".*"\n    class: NETWORK\n',
    );
    const r = await sf(["admin", "fleet", "diagnosis", fleet, "--set", bad], admin);
    expect(r.code).toBe(5);
    expect(r.stderr).toContain(`${bad}: rule 1: pattern is not a valid regular expression: `);
    expect(r.stderr).toContain("Unterminated group");
    expect(r.stderr).toContain("rule 2: pattern matches an empty line");
    expect(r.stderr).toContain("[INVALID_RULES]");
    expect(r.stderr).toContain("nothing was sent");
    // The fleet's rules are the ones set before.
    const f = await call(cp, cp.adminToken, "GET", `/v1/fleets/${fleet}`);
    expect((f.body.fleet as { diagnosis: unknown }).diagnosis).toEqual(RULES);
    // A fleet that does not exist: the server's coded error.
    const missing = await sf(
      ["admin", "fleet", "diagnosis", unique("nope"), "--set", rulesFile("ok.json", "{}")],
      admin,
    );
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain("[FLEET_NOT_FOUND]");
    // Only admins change them.
    const operator = await sf(["admin", "fleet", "diagnosis", fleet, "--clear"], {
      home: s.home,
      server: cp.url,
      env: { SF_TOKEN: s.token },
    });
    expect(operator.code).toBe(3);
  });

  it("a job failing with a line a rule matches gets the rule's class, hint and action; an exit code rule, the fleet's action", async () => {
    const ids: Record<string, string> = {};
    for (const exp of [EXPS.lustre, EXPS.exit42]) {
      const r = await p.sf(["submit", exp, "--profile", "h200:1"]);
      expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
      ids[exp] = JOB_ID.exec(r.stdout)![0];
    }
    const lustre = await diagnosed(ids[EXPS.lustre]!);
    expect(lustre).toMatchObject({
      class: "FILE_NOT_FOUND",
      rule: 0,
      hint: "The scratch mount went away: ask #storage.",
      line: { text: LUSTRE_LINE },
      action: { policy: "no_retry", retried: false },
    });
    const exit42 = await diagnosed(ids[EXPS.exit42]!);
    expect(exit42).toMatchObject({
      class: "DISK_FULL",
      rule: 1,
      line: null,
      action: { policy: "no_retry", retried: false },
    });
    expect(exit42.hint).toMatch(/^The disk filled up/);
    const status = await p.sf(["job", "status", ids[EXPS.lustre]!]);
    expect(status.stdout).toContain("Why it failed: FILE_NOT_FOUND");
  });
});

describe("sf job logs -f on a job its diagnosis retries", () => {
  it("waits for a FAILED job's diagnosis, and for the retry it decided; a job not retried, or from before diagnoses, rests", () => {
    const failed = (diagnosis: unknown, detail: Record<string, unknown>) =>
      ({
        job: { id: "job_x", status: "FAILED", current_run_id: "run_x" },
        runs: [{ id: "run_x", attempt: 1, status: "FAILED", diagnosis }],
        events: [{ from: "RUNNING", to: "FAILED", edge: "failed", detail }],
      }) as unknown as JobDetailResponse;
    const dg = (retried: boolean) => ({ class: "NETWORK", summary: "s", action: { retried } });
    expect(awaitingRetry(failed(null, { reason: "exit 1", diagnosis: "pending" }))).toEqual({
      kind: "diagnosing",
    });
    expect(awaitingRetry(failed(dg(true), { reason: "exit 1" }))).toMatchObject({ kind: "retrying" });
    expect(awaitingRetry(failed(dg(false), { reason: "exit 1" }))).toBeNull();
    expect(awaitingRetry(failed(null, { reason: "exit 1" }))).toBeNull();
  });

  it("says why the attempt failed, follows the retry's logs to SUCCEEDED and exits 0", async () => {
    const r = await follow;
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout.split("\n").filter(Boolean)).toEqual([
      "attempt 1: calling the service",
      NETWORK_LINE,
      "attempt 2: the service answers",
    ]);
    const d = await detail(flaky);
    expect(d.job.status).toBe("SUCCEEDED");
    expect(d.runs.map((x) => x.status)).toEqual(["FAILED", "SUCCEEDED"]);
    expect(d.runs[0]!.diagnosis).toMatchObject({ class: "NETWORK", action: { retried: true } });
    expect(r.stderr).toContain(
      "attempt 1 failed: NETWORK — a network connection failed; retry 1 of 1 (NETWORK is retried); attempt 2 follows after the retry backoff\n",
    );
    expect(r.stderr).toContain(`── attempt 2 (${d.runs[1]!.id}) ──`);
    expect(r.stderr).toMatch(new RegExp(`✓ ${flaky} SUCCEEDED\\n$`));
    // Said once, not at every poll of the backoff.
    expect(r.stderr.split("attempt 1 failed").length).toBe(2);
  });
});
