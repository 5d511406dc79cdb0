/**
 * Tier 3: `sf submit` refuses before it sends anything — typos offline, stale locks at the catalog
 * handshake, dirty trees, secret files, credentials inside files, impossible GPU shapes — expands profiles into the shapes the
 * server schedules, and retries a POST whose answer was lost without creating a second job. Real `sf`
 * processes against a real control plane; "nothing uploaded" is checked by probing the server for the
 * blobs the refused submit would have sent.
 */
import { symlinkSync } from "node:fs";
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { beforeAll, describe, expect, it } from "vitest";
import { sharedControlPlane, unique as uniqueName } from "../support/shared-control-plane.js";
import {
  blobStatus,
  fakeHfToken,
  jobCount,
  jobDetail,
  makeProject,
  type Server,
  serverUser,
  sha256,
} from "./submit-fixture.js";

let s: Server;
/** A node-less fleet of this file's own: nothing here needs to run, and jobs there stay QUEUED. */
const EMPTY = uniqueName("empty");
/** This file's experiment (the name of its jobs) and project; its own user counts only its own jobs. */
const EXP_NAME = uniqueName("exp");
const PROJECT = uniqueName("checks");

beforeAll(async () => {
  const cp = sharedControlPlane();
  s = await serverUser(cp, uniqueName("ada"), EMPTY);
});

const EXP = `experiments/${EXP_NAME}`;

/** A project of this file's: its own name and experiment, its fleet the node-less one. */
const project = (o: Parameters<typeof makeProject>[1] = {}) =>
  makeProject(s, { exp: EXP_NAME, project: PROJECT, fleet: EMPTY, ...o });

describe("offline checks", () => {
  it("rejects a --set typo without a server, listing the known keys", async () => {
    const p = await project();
    // A dead server: reaching it would exit 6 (UNAVAILABLE), so exit 5 proves the check ran offline.
    const r = await p.sf(["submit", EXP_NAME, "--profile", "h200:1", "--set", "lerning_rate=0.1"], {
      SF_SERVER: "http://127.0.0.1:9",
      SF_TOKEN: "",
    });
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).toContain('unknown hyperparameter "lerning_rate"');
    expect(r.stderr).toContain(
      "known: batch_size, checkpoint_every, context, learning_rate, max_steps, seed",
    );
    expect(r.stderr).toContain("[INVALID_HYPERPARAMS]");
  });

  it("rejects an out-of-range --set and a bad --profile syntax as usage errors before the server", async () => {
    const p = await project();
    const range = await p.sf(["submit", EXP_NAME, "--profile", "h200:1", "--set", "max_steps=0"], {
      SF_SERVER: "http://127.0.0.1:9",
    });
    expect(range.code, range.stderr).toBe(5);
    expect(range.stderr).toContain('"max_steps" must be >= 1');
    const syntax = await p.sf(["submit", EXP_NAME, "--profile", "H200::4"], {
      SF_SERVER: "http://127.0.0.1:9",
    });
    expect(syntax.code, syntax.stderr).toBe(2);
    expect(syntax.stderr).toContain("expected [ROLE=]NAME[:GPUS]");
  });

  it("refuses a lock that pins another method than config.yaml, pointing at sf recipe upgrade", async () => {
    const p = await project();
    p.write(`${EXP}/config.yaml`, "method: custom/custom\n");
    p.commit();
    const r = await p.sf(["submit", EXP_NAME, "--profile", "h200:1"]);
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).toContain("[RECIPE_LOCK_MISMATCH]");
    expect(r.stderr).toContain(`sf recipe upgrade ${EXP_NAME}`);
  });
});

describe("catalog handshake before packing", () => {
  const cases: Array<{ code: string; edit: (lock: Record<string, Record<string, string>>) => unknown }> = [
    {
      code: "RECIPE_LOCK_STALE",
      edit: (l) => Object.assign(l.recipe!, { digest: sha256("not the published recipe") }),
    },
    { code: "RECIPE_VERSION_NOT_FOUND", edit: (l) => Object.assign(l.recipe!, { version: "9.9.9" }) },
    { code: "FRAMEWORK_VERSION_UNSUPPORTED", edit: (l) => Object.assign(l.framework!, { version: "2" }) },
  ];
  for (const c of cases) {
    it(`refuses with ${c.code} and uploads nothing`, async () => {
      const unique = `print("only in this project: ${c.code} ${Math.random()}")\n`;
      const p = await project({
        files: { [`${EXP}/train_extra.py`]: unique },
        // config.yaml is the same in every fixture, and other files on the shared control plane upload
        // it: this one's is its own, so that "uploads nothing" holds for it too.
        config: `method: python/charlm\nhyperparams:\n  max_steps: 20\n  checkpoint_every: 10\n# ${c.code} ${Math.random()}\n`,
      });
      const lock = JSON.parse(p.read(`${EXP}/recipe.lock.json`));
      c.edit(lock);
      p.write(`${EXP}/recipe.lock.json`, JSON.stringify(lock));
      p.commit("stale lock");
      const before = await jobCount(s);

      const r = await p.sf(["submit", EXP_NAME, "--profile", "h200:1", "--fleet", EMPTY]);
      expect(r.code, r.stderr).toBe(5);
      expect(r.stderr).toContain(`[${c.code}]`);
      expect(r.stderr).toMatch(new RegExp(`hint: .*sf recipe upgrade ${EXP_NAME}`));
      expect(r.stderr).not.toContain("uploaded");
      for (const content of [unique, p.read(`${EXP}/config.yaml`), p.read("common/util.py")]) {
        expect(await blobStatus(s.cp, sha256(content))).toBe(404);
      }
      expect(await jobCount(s)).toBe(before);
    });
  }
});

describe("what gets packed", () => {
  it("refuses a dirty tree, listing the files; --allow-dirty submits with git_dirty true", async () => {
    const p = await project();
    const head = p.git("rev-parse", "HEAD");
    const changed = `# edited ${Math.random()}\n`;
    p.write("common/util.py", changed);
    p.write(`${EXP}/new_file.py`, "x = 1\n");
    p.write("notes/private.txt", "outside the whitelist: does not make the tree dirty\n");

    const r = await p.sf(["submit", EXP_NAME, "--profile", "h200:1", "--fleet", EMPTY]);
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).toContain("[DIRTY_TREE]");
    expect(r.stderr).toContain(
      `2 packed files differ from the last commit: common/util.py, ${EXP}/new_file.py`,
    );
    expect(r.stderr).toContain("--allow-dirty");
    expect(await blobStatus(s.cp, sha256(changed))).toBe(404);

    const ok = await p.sf([
      "submit",
      EXP_NAME,
      "--profile",
      "h200:1",
      "--fleet",
      EMPTY,
      "--allow-dirty",
      "--json",
    ]);
    expect(ok.code, ok.stderr).toBe(0);
    const { job } = JSON.parse(ok.stdout) as { job: { id: string } };
    const spec = (await jobDetail(s, job.id)).job.spec;
    expect(spec.provenance).toEqual({
      git_commit: head,
      git_dirty: true,
      config_sha: sha256(p.read(`${EXP}/config.yaml`)),
    });
    expect(await blobStatus(s.cp, sha256(changed))).toBe(200);
  });

  it("refuses a committed .env fail-closed, names it, uploads nothing; ignoring it lets the submit through", async () => {
    const secret = `HF_TOKEN=hf_${Math.random().toString(36).slice(2)}\n`;
    const p = await project({ files: { [`${EXP}/.env`]: secret } });
    const before = await jobCount(s);
    const r = await p.sf(["submit", EXP_NAME, "--profile", "h200:1", "--fleet", EMPTY]);
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).toContain("[SECRET_FILE]");
    expect(r.stderr).toContain(`${EXP}/.env`);
    expect(r.stderr).toContain(".gitignore");
    expect(await blobStatus(s.cp, sha256(secret))).toBe(404);
    expect(await blobStatus(s.cp, sha256(p.read("common/util.py")))).toBe(404);
    expect(await jobCount(s)).toBe(before);

    // The way out the hint gives: ignore it (and untrack it). The file stays on disk, never uploaded.
    p.write(".gitignore", "outputs/\n.env\n");
    p.git("rm", "-q", "--cached", `${EXP}/.env`);
    p.commit("ignore .env");
    const ok = await p.sf(["submit", EXP_NAME, "--profile", "h200:1", "--fleet", EMPTY]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(await blobStatus(s.cp, sha256(secret))).toBe(404);
  });

  it("refuses a committed file holding an hf_ token by content, naming file, line and kind, never the token; uploads nothing", async () => {
    const token = fakeHfToken();
    const train = [
      "import os",
      'hf_repo = "org/model"  # near-misses: an hf_ name, a short "hf_abc", the word password',
      'hf_token = os.environ.get("HF_TOKEN", "hf_abc")  # the password comes from the server',
      `HF_TOKEN = "${token}"`,
      "",
    ].join("\n");
    // Binary (a NUL in the first 8 KiB): packed, but not read for content.
    const binary = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0]), Buffer.from(` ${token}\n`)]);
    const p = await project({ files: { [`${EXP}/train_extra.py`]: train } });
    p.write("common/weights.bin", binary);
    p.commit("binary");
    const before = await jobCount(s);

    const r = await p.sf(["submit", EXP_NAME, "--profile", "h200:1", "--fleet", EMPTY]);
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).toContain("[SECRET_IN_FILE]");
    expect(r.stderr).toContain(`${EXP}/train_extra.py:4: HuggingFace token (hf_…)`);
    expect(r.stderr).not.toContain("train_extra.py:2");
    expect(r.stderr).not.toContain("train_extra.py:3");
    expect(r.stderr).not.toContain("common/weights.bin");
    expect(r.stderr).not.toContain(token.slice(3));
    expect(r.stderr).toMatch(/hint: .*rotate it.*`sf secret set NAME`.*--secret NAME/);
    expect(r.stderr).not.toContain("uploaded");
    // Contents unique to this project (config.yaml is the same in every fixture, so earlier tests sent it).
    for (const content of [train, p.read("common/util.py")]) {
      expect(await blobStatus(s.cp, sha256(content))).toBe(404);
    }
    expect(await jobCount(s)).toBe(before);

    // With the token gone the submit goes through, and the binary file holding the same bytes is uploaded.
    p.write(`${EXP}/train_extra.py`, train.replace(`"${token}"`, 'os.environ["HF_TOKEN"]'));
    p.commit("token from the environment");
    const ok = await p.sf(["submit", EXP_NAME, "--profile", "h200:1", "--fleet", EMPTY]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(await blobStatus(s.cp, sha256(binary))).toBe(200);
    expect(await jobCount(s)).toBe(before + 1);
  });

  it("refuses an uncommitted file holding a credential as a credential, not as a dirty tree, listing every one", async () => {
    const p = await project();
    p.write("common/util.py", `# helper\n\nTOKEN = "${fakeHfToken()}"\n`);
    p.write("configs/deploy.yaml", `a: 1\nkey: ${fakeHfToken()}\n`);
    // Without --allow-dirty the dirty check would answer "commit them": the one wrong advice for a token.
    const r = await p.sf(["submit", EXP_NAME, "--profile", "h200:1", "--fleet", EMPTY]);
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).toContain("[SECRET_IN_FILE]");
    expect(r.stderr).not.toContain("DIRTY_TREE");
    expect(r.stderr).toContain("refusing to upload 2 files holding credentials");
    expect(r.stderr).toContain("common/util.py:3: HuggingFace token (hf_…)");
    expect(r.stderr).toContain("configs/deploy.yaml:2: HuggingFace token (hf_…)");
  });

  it("refuses a symlink that points outside the project", async () => {
    const p = await project();
    symlinkSync("/etc/hostname", `${p.dir}/common/host`);
    p.commit("link");
    const r = await p.sf(["submit", EXP_NAME, "--profile", "h200:1", "--fleet", EMPTY]);
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).toContain("[SYMLINK_OUTSIDE_PROJECT]");
    expect(r.stderr).toContain("common/host");
  });
});

describe("profiles", () => {
  const shapes: Array<[string, { nodes: number; gpus_per_node: number }]> = [
    ["h200", { nodes: 1, gpus_per_node: 8 }],
    ["h200:4", { nodes: 1, gpus_per_node: 4 }],
    ["h200:16", { nodes: 2, gpus_per_node: 8 }],
  ];
  it("expands h200, h200:4 and h200:16 into the shapes the JobSpec carries, and says why a job waits", async () => {
    const p = await project();
    for (const [arg, shape] of shapes) {
      const r = await p.sf(["submit", EXP_NAME, "--profile", arg, "--fleet", EMPTY]);
      expect(r.code, r.stderr).toBe(0);
      const id = /job_[0-9a-z]{26}/.exec(r.stdout)?.[0];
      expect(id, r.stdout).toBeDefined();
      expect(r.stdout).toContain("QUEUED");
      expect(r.stdout).toContain("waiting: ");
      const pools = (await jobDetail(s, id!)).job.spec.resources.pools;
      expect(pools).toEqual([{ name: "default", profile: "h200", series: "h200", ...shape }]);
    }
  });

  it("rejects h200:12 naming the allowed shapes, and an unknown profile naming the known ones", async () => {
    const p = await project();
    const before = await jobCount(s);
    const bad = await p.sf(["submit", EXP_NAME, "--profile", "h200:12", "--fleet", EMPTY]);
    expect(bad.code, bad.stderr).toBe(5);
    expect(bad.stderr).toContain(
      "cannot take 12 GPUs: allowed shapes are 1–8 GPUs on one node, or a multiple of 8 (16, 24, …)",
    );
    const unknown = await p.sf(["submit", EXP_NAME, "--profile", "z900:1", "--fleet", EMPTY]);
    expect(unknown.code, unknown.stderr).toBe(5);
    expect(unknown.stderr).toContain('unknown profile "z900"; known profiles: a100, h100, h200, l40s');
    expect(await jobCount(s)).toBe(before);
  });
});

/** Forwards to the control plane, but swallows the answer to the first POST /v1/jobs and drops the connection. */
async function lossyProxy(target: string): Promise<{ url: string; close: () => void }> {
  let dropped = false;
  const srv = createServer((req, res) => {
    const up = request(
      new URL(req.url!, target),
      { method: req.method, headers: { ...req.headers, host: new URL(target).host } },
      (ur) => {
        if (req.method === "POST" && req.url === "/v1/jobs" && !dropped) {
          dropped = true;
          ur.resume();
          ur.on("end", () => req.socket.destroy());
          return;
        }
        res.writeHead(ur.statusCode!, ur.headers);
        ur.pipe(res);
      },
    );
    req.pipe(up);
  });
  await new Promise<void>((ok) => srv.listen(0, "127.0.0.1", ok));
  return { url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`, close: () => srv.close() };
}

describe("posting the job", () => {
  it("retries with the same Idempotency-Key when the answer is lost, creating exactly one job", async () => {
    const p = await project();
    const proxy = await lossyProxy(s.cp.url);
    try {
      const before = await jobCount(s);
      const r = await p.sf(["submit", EXP_NAME, "--profile", "h200:1", "--fleet", EMPTY], {
        SF_SERVER: proxy.url,
      });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain("retrying with the same Idempotency-Key");
      expect(await jobCount(s)).toBe(before + 1);
      const id = /job_[0-9a-z]{26}/.exec(r.stdout)?.[0];
      expect((await jobDetail(s, id!)).job.id).toBe(id);
    } finally {
      proxy.close();
    }
  });
});
