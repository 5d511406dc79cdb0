/**
 * `sf job artifacts ID [--download [PATH] | --download --all] [--out DIR]`: what a run registered, and its
 * bytes. A download streams to a temp file beside the target while hashing, checks the sha256 the run
 * registered, fsyncs and renames: an interrupted or corrupt download never leaves a file at the target.
 */
import { createHash } from "node:crypto";
import { createReadStream, existsSync, rmSync } from "node:fs";
import { mkdir, open, rename } from "node:fs/promises";
import { dirname, relative, resolve, sep } from "node:path";
import type { Command } from "commander";
import { type Artifact, ArtifactList } from "../../../contract/responses.schema.js";
import { type Api, readJson, route } from "../../api.js";
import { authedApi } from "../../context.js";
import { CliError, EXIT } from "../../errors.js";
import { c, emit, humanBytes, info, isJson, printJson, progress } from "../../output.js";
import { colorTable, shortDigest } from "./format.js";

export interface ArtifactsOptions {
  download?: string | boolean;
  all?: boolean;
  out?: string;
  run?: string;
}

export interface Downloaded {
  path: string;
  file: string;
  bytes: number;
  digest: string;
  verified: boolean;
  skipped: boolean;
}

export async function listArtifacts(
  api: Api,
  jobId: string,
  run?: string,
): Promise<{ run_id: string; artifacts: Artifact[] }> {
  const q = new URLSearchParams(run ? { run } : {});
  return await api.get(route("/v1/jobs/{id}/artifacts", { id: jobId }, q), ArtifactList);
}

/** The checkpoint with the highest step whose bytes were uploaded (the newest registration on a tie). */
export function latestCheckpoint(artifacts: Artifact[]): Artifact | undefined {
  return artifacts
    .filter((a) => a.kind === "checkpoint" && a.stored)
    .sort((a, b) => (a.step ?? -1) - (b.step ?? -1) || a.registered_at.localeCompare(b.registered_at))
    .at(-1);
}

async function sha256File(path: string): Promise<string> {
  const h = createHash("sha256");
  for await (const chunk of createReadStream(path)) h.update(chunk as Buffer);
  return `sha256:${h.digest("hex")}`;
}

/** Where an artifact lands under `outDir`; refuses a path that would escape it. */
export function targetPath(outDir: string, artifactPath: string): string {
  const root = resolve(outDir);
  const dest = resolve(root, artifactPath);
  if (!dest.startsWith(root + sep))
    throw new CliError(`artifact path ${artifactPath} would be written outside ${root}`, {
      code: "UNSAFE_PATH",
    });
  return dest;
}

export async function downloadArtifact(
  api: Api,
  jobId: string,
  runId: string,
  a: Artifact,
  outDir: string,
): Promise<Downloaded> {
  if (!a.stored) {
    throw new CliError(`${a.path} was registered by path only; its bytes were never uploaded`, {
      code: "NOT_FOUND",
      exit: EXIT.NOT_FOUND,
      hint: "the file stays where the job wrote it, on the cluster",
    });
  }
  const dest = targetPath(outDir, a.path);
  if (a.digest && existsSync(dest) && (await sha256File(dest)) === a.digest) {
    return {
      path: a.path,
      file: dest,
      bytes: a.size_bytes ?? 0,
      digest: a.digest,
      verified: true,
      skipped: true,
    };
  }
  const q = new URLSearchParams({ run: runId, path: a.path });
  const res = await api.fetch("GET", route("/v1/jobs/{id}/artifacts/download", { id: jobId }, q));
  if (!res.ok) await readJson(res);
  if (!res.body) throw new CliError(`the server sent no bytes for ${a.path}`, { code: "BAD_RESPONSE" });
  await mkdir(dirname(dest), { recursive: true });
  const tmp = `${dest}.part-${process.pid}-${Date.now()}`;
  const cleanup = () => rmSync(tmp, { force: true });
  const onSigint = () => {
    cleanup();
    process.exit(EXIT.INTERRUPTED);
  };
  process.once("SIGINT", onSigint);
  const total = Number(res.headers.get("content-length") ?? a.size_bytes ?? 0);
  const bar = progress(`downloading ${a.path}`, total);
  const h = createHash("sha256");
  let bytes = 0;
  try {
    const fh = await open(tmp, "w", 0o644);
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        h.update(chunk);
        bytes += chunk.length;
        await fh.write(chunk);
        bar.add(chunk.length);
      }
      await fh.sync();
    } finally {
      await fh.close();
    }
    const actual = `sha256:${h.digest("hex")}`;
    const etag = res.headers.get("etag")?.replace(/"/g, "") ?? null;
    const expected = a.digest ?? etag;
    if (total > 0 && bytes !== total) {
      throw new CliError(`${a.path}: got ${bytes} bytes, expected ${total}`, {
        code: "DOWNLOAD_INCOMPLETE",
        exit: EXIT.UNAVAILABLE,
        hint: "run the download again",
      });
    }
    if (expected && expected !== actual) {
      throw new CliError(`${a.path}: the downloaded bytes hash to ${actual}, not ${expected}`, {
        code: "DIGEST_MISMATCH",
        hint: "nothing was written; run the download again, and tell an admin if it persists",
      });
    }
    await rename(tmp, dest);
    bar.done(
      `${c.green("✓")} ${a.path} → ${relative(process.cwd(), dest) || dest} (${humanBytes(bytes)}, ${expected ? `${shortDigest(actual)}… verified` : "no digest to verify"})`,
    );
    return { path: a.path, file: dest, bytes, digest: actual, verified: expected !== null, skipped: false };
  } catch (err) {
    cleanup();
    throw err;
  } finally {
    process.removeListener("SIGINT", onSigint);
  }
}

export async function artifacts(cmd: Command, id: string, o: ArtifactsOptions): Promise<void> {
  const api = authedApi(cmd);
  const list = await listArtifacts(api, id, o.run);
  if (o.download === undefined && !o.all) {
    emit({ job_id: id, ...list }, () => {
      if (list.artifacts.length === 0) {
        info(`run ${list.run_id} has registered no artifacts yet`);
        return;
      }
      colorTable(
        list.artifacts.map((a) => ({
          path: a.path,
          kind: a.kind,
          step: a.step,
          size: a.size_bytes === null ? null : humanBytes(a.size_bytes),
          digest: shortDigest(a.digest),
          stored: a.stored ? "yes" : "no",
        })),
        ["path", "kind", "step", "size", "digest", "stored"],
      );
    });
    return;
  }
  if (o.all && typeof o.download === "string")
    throw new CliError("give a PATH or --all, not both", { exit: EXIT.USAGE });
  let chosen: Artifact[];
  if (o.all) {
    chosen = list.artifacts.filter((a) => a.stored);
    if (chosen.length === 0)
      throw new CliError(`run ${list.run_id} has no downloadable artifacts`, {
        code: "NOT_FOUND",
        exit: EXIT.NOT_FOUND,
      });
  } else if (typeof o.download === "string") {
    const a = list.artifacts.find((x) => x.path === o.download);
    if (!a) {
      throw new CliError(`run ${list.run_id} registered no artifact ${o.download}`, {
        code: "NOT_FOUND",
        exit: EXIT.NOT_FOUND,
        hint: `\`sf job artifacts ${id}\` lists what it has`,
      });
    }
    chosen = [a];
  } else {
    const a = latestCheckpoint(list.artifacts);
    if (!a) {
      throw new CliError(`run ${list.run_id} has no downloadable checkpoint`, {
        code: "NOT_FOUND",
        exit: EXIT.NOT_FOUND,
        hint: `\`sf job artifacts ${id}\` lists what it has; --download PATH fetches one of them`,
      });
    }
    chosen = [a];
  }
  const out = o.out ?? ".";
  const done: Downloaded[] = [];
  for (const a of chosen) {
    const d = await downloadArtifact(api, id, list.run_id, a, out);
    if (d.skipped)
      info(
        `${c.dim("=")} ${a.path} is already at ${relative(process.cwd(), d.file) || d.file} with the same digest`,
      );
    done.push(d);
  }
  if (isJson()) printJson({ job_id: id, run_id: list.run_id, downloaded: done });
}
