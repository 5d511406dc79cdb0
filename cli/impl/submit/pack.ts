/**
 * Packs the whitelist (the experiment, common/, configs/) into content-addressed files plus one
 * WorkspaceManifest naming them by digest, paths relative to the project root. Scanning refuses secret
 * files and symlinks that leave the project before anything is hashed or sent.
 */
import { createHash } from "node:crypto";
import { createReadStream, lstatSync, realpathSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { canonicalJson } from "../../../contract/digest.js";
import { MAX_MANIFEST_FILES, type WorkspaceManifest } from "../../../contract/workspace-manifest.schema.js";
import { CliError, EXIT } from "../../errors.js";
import { listPackable } from "./git.js";
import { isSecretPath } from "./secrets.js";

export interface ScannedFile {
  /** Relative to the project root, forward slashes. */
  path: string;
  /** Where to read the bytes (a symlink is read through to its target). */
  abs: string;
  size: number;
  mode: number;
}

export interface PackedFile extends ScannedFile {
  digest: string;
}

export interface Pack {
  files: PackedFile[];
  manifestBytes: Buffer;
  manifestDigest: string;
}

/** The directories every submit packs, relative to the project root. */
export function whitelist(experimentRelDir: string): string[] {
  return [`${experimentRelDir}/`, "common/", "configs/"];
}

export const listed = (paths: string[]) =>
  paths.slice(0, 10).join(", ") + (paths.length > 10 ? `, … (${paths.length} in all)` : "");

/** The files a submit would pack, after the secret and symlink checks. */
export function scanWorkspace(root: string, pathspecs: string[]): ScannedFile[] {
  const paths = listPackable(root, pathspecs);
  const secrets = paths.filter(isSecretPath);
  if (secrets.length > 0) throw secretError(secrets);
  if (paths.length > MAX_MANIFEST_FILES) {
    throw new CliError(
      `the workspace has ${paths.length} files; at most ${MAX_MANIFEST_FILES} can be packed`,
      {
        code: "WORKSPACE_TOO_LARGE",
        exit: EXIT.REJECTED,
        hint: "ignore data and outputs in .gitignore; the workspace is for code and configs",
      },
    );
  }
  const realRoot = realpathSync(root);
  const out: ScannedFile[] = [];
  for (const path of paths) {
    const abs = join(root, path);
    if (path.endsWith("/")) throw unpackable(path, "is a nested git repository");
    let st: ReturnType<typeof lstatSync>;
    try {
      st = lstatSync(abs);
    } catch {
      continue; // deleted but still in the index: not packed (and the tree is dirty)
    }
    if (st.isSymbolicLink()) {
      let target: string;
      try {
        target = realpathSync(abs);
      } catch {
        throw unpackable(path, "is a symlink to nothing");
      }
      if (!target.startsWith(realRoot + sep)) {
        throw new CliError(`${path} is a symlink to ${target}, outside the project`, {
          code: "SYMLINK_OUTSIDE_PROJECT",
          exit: EXIT.REJECTED,
          hint: "copy the file into the project (common/ is packed with every experiment) or ignore the link in .gitignore",
        });
      }
      const rel = relative(realRoot, target).split(sep).join("/");
      if (isSecretPath(rel)) throw secretError([`${path} -> ${rel}`]);
      st = statSync(abs);
    }
    if (!st.isFile()) throw unpackable(path, "is not a regular file (a git submodule?)");
    out.push({ path, abs, size: Number(st.size), mode: Number(st.mode) & 0o111 ? 0o755 : 0o644 });
  }
  return out;
}

function secretError(paths: string[]): CliError {
  return new CliError(`refusing to upload secret file${paths.length > 1 ? "s" : ""}: ${listed(paths)}`, {
    code: "SECRET_FILE",
    exit: EXIT.REJECTED,
    hint: "add it to .gitignore (and `git rm --cached <file>` if it is committed); jobs get secrets from the server, not the workspace",
  });
}

function unpackable(path: string, why: string): CliError {
  return new CliError(`${path} ${why}; sf packs regular files only`, {
    code: "UNPACKABLE_FILE",
    exit: EXIT.REJECTED,
    hint: "ignore it in .gitignore or replace it with the files themselves",
  });
}

async function hashFile(abs: string): Promise<string> {
  const h = createHash("sha256");
  for await (const chunk of createReadStream(abs)) h.update(chunk as Buffer);
  return `sha256:${h.digest("hex")}`;
}

/** Hashes every file (streamed from disk, a few at a time) and builds the manifest blob. */
export async function hashWorkspace(files: ScannedFile[]): Promise<Pack> {
  const packed: PackedFile[] = new Array(files.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < files.length; i = next++) {
      const f = files[i]!;
      packed[i] = { ...f, digest: await hashFile(f.abs) };
    }
  };
  await Promise.all(Array.from({ length: Math.min(8, files.length) }, worker));
  const manifest: WorkspaceManifest = {
    manifest_version: 1,
    files: packed.map((f) => ({ path: f.path, digest: f.digest, size: f.size, mode: f.mode })),
  };
  // Canonical JSON: the same tree always gives the same manifest digest, so a re-submit uploads nothing.
  const manifestBytes = Buffer.from(canonicalJson(manifest));
  const manifestDigest = `sha256:${createHash("sha256").update(manifestBytes).digest("hex")}`;
  return { files: packed, manifestBytes, manifestDigest };
}
