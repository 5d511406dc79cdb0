/**
 * Packs the whitelist (the experiment, common/, configs/) into content-addressed files plus one
 * WorkspaceManifest naming them by digest, paths relative to the project root. Scanning refuses secret
 * files, files holding a credential (secret-scan.ts) and symlinks that leave the project before anything
 * is sent.
 */
import { createHash } from "node:crypto";
import { closeSync, createReadStream, lstatSync, openSync, readSync, realpathSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { canonicalJson } from "../../../contract/digest.js";
import { MAX_MANIFEST_FILES, type WorkspaceManifest } from "../../../contract/workspace-manifest.schema.js";
import { CliError, EXIT } from "../../errors.js";
import { listPackable } from "./git.js";
import { type Finding, SCAN_MAX_BYTES, scanBytes } from "./secret-scan.js";
import { isSecretPath } from "./secrets.js";

export interface ScannedFile {
  /** Relative to the project root, forward slashes. */
  path: string;
  /** Where to read the bytes (a symlink is read through to its target). */
  abs: string;
  size: number;
  mode: number;
  /** Set when the scan read the file (up to SCAN_MAX_BYTES): the digest of the very bytes it scanned. */
  digest?: string;
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

/**
 * The files a submit would pack, after the secret (by name, then by content) and symlink checks. Files up
 * to SCAN_MAX_BYTES are read once, here: scanned and hashed from the same bytes, so what the manifest
 * names is what was scanned (the server checks each upload against its digest). Larger files are only
 * stat'ed here and streamed by hashWorkspace.
 */
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
  const found: Array<Finding & { path: string }> = [];
  // One buffer for the whole scan: a file's bytes are needed only until they are hashed and scanned.
  const scratch = Buffer.allocUnsafe(SCAN_MAX_BYTES + 1);
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
    const file: ScannedFile = {
      path,
      abs,
      size: Number(st.size),
      mode: Number(st.mode) & 0o111 ? 0o755 : 0o644,
    };
    const bytes = file.size <= SCAN_MAX_BYTES ? readInto(abs, scratch) : null;
    if (bytes) {
      file.size = bytes.length;
      file.digest = sha256(bytes);
      for (const f of scanBytes(bytes) ?? []) found.push({ path, ...f });
    }
    out.push(file);
  }
  if (found.length > 0) throw credentialError(found);
  return out;
}

/**
 * The whole file as a view of `buf`, or null if it does not fit in `buf.length - 1` bytes (it may have
 * grown since the stat; it is then streamed by hashWorkspace like any large file).
 */
function readInto(abs: string, buf: Buffer): Buffer | null {
  const fd = openSync(abs, "r");
  try {
    let n = 0;
    for (let r = 1; r > 0 && n < buf.length; n += r) r = readSync(fd, buf, n, buf.length - n, null);
    return n < buf.length ? buf.subarray(0, n) : null;
  } finally {
    closeSync(fd);
  }
}

function secretError(paths: string[]): CliError {
  return new CliError(`refusing to upload secret file${paths.length > 1 ? "s" : ""}: ${listed(paths)}`, {
    code: "SECRET_FILE",
    exit: EXIT.REJECTED,
    hint: "add it to .gitignore (and `git rm --cached <file>` if it is committed); jobs get secrets from the server, not the workspace",
  });
}

const SHOWN_FINDINGS = 20;

function credentialError(found: Array<Finding & { path: string }>): CliError {
  const files = new Set(found.map((f) => f.path)).size;
  const lines = found.slice(0, SHOWN_FINDINGS).map((f) => `  ${f.path}:${f.line}: ${f.label}`);
  if (found.length > SHOWN_FINDINGS) lines.push(`  … (${found.length} in all)`);
  return new CliError(
    `refusing to upload ${files === 1 ? "a file" : `${files} files`} holding credentials:\n${lines.join("\n")}`,
    {
      code: "SECRET_IN_FILE",
      exit: EXIT.REJECTED,
      hint: "remove the credential from the file and rotate it (if it was ever committed it is in git history: treat it as leaked); give jobs secrets with `sf secret set NAME` and `sf submit --secret NAME`",
    },
  );
}

function unpackable(path: string, why: string): CliError {
  return new CliError(`${path} ${why}; sf packs regular files only`, {
    code: "UNPACKABLE_FILE",
    exit: EXIT.REJECTED,
    hint: "ignore it in .gitignore or replace it with the files themselves",
  });
}

const sha256 = (bytes: Buffer) => `sha256:${createHash("sha256").update(bytes).digest("hex")}`;

async function hashFile(abs: string): Promise<string> {
  const h = createHash("sha256");
  for await (const chunk of createReadStream(abs)) h.update(chunk as Buffer);
  return `sha256:${h.digest("hex")}`;
}

/**
 * Hashes every file the scan did not already hash (streamed from disk, a few at a time) and builds the
 * manifest blob.
 */
export async function hashWorkspace(files: ScannedFile[]): Promise<Pack> {
  const packed: PackedFile[] = new Array(files.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < files.length; i = next++) {
      const f = files[i]!;
      packed[i] = { ...f, digest: f.digest ?? (await hashFile(f.abs)) };
    }
  };
  await Promise.all(Array.from({ length: Math.min(8, files.length) }, worker));
  const manifest: WorkspaceManifest = {
    manifest_version: 1,
    files: packed.map((f) => ({ path: f.path, digest: f.digest, size: f.size, mode: f.mode })),
  };
  // Canonical JSON: the same tree always gives the same manifest digest, so a re-submit uploads nothing.
  const manifestBytes = Buffer.from(canonicalJson(manifest));
  const manifestDigest = sha256(manifestBytes);
  return { files: packed, manifestBytes, manifestDigest };
}
