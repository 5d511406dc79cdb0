/**
 * Git, read-only: which files a submit packs (git's own ignore rules decide) and the provenance it
 * records. The project must be a git work tree: .gitignore is what keeps data and secrets out.
 */
import { spawnSync } from "node:child_process";
import { CliError, EXIT } from "../../errors.js";

function git(root: string, args: string[]): { ok: boolean; out: string; err: string } {
  const r = spawnSync("git", args, { cwd: root, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  if (r.error) {
    throw new CliError(`cannot run git: ${r.error.message}`, {
      code: "GIT_UNAVAILABLE",
      hint: "install git; sf packs what git tracks",
    });
  }
  return { ok: r.status === 0, out: r.stdout, err: r.stderr };
}

/** Fails clearly unless `root` is inside a git work tree. */
export function requireWorkTree(root: string): void {
  const r = git(root, ["rev-parse", "--is-inside-work-tree"]);
  if (!r.ok || r.out.trim() !== "true") {
    throw new CliError(`${root} is not a git repository`, {
      code: "NOT_A_GIT_REPO",
      exit: EXIT.REJECTED,
      hint: "sf packs tracked and untracked-not-ignored files; run `git init && git add -A && git commit -m init`",
    });
  }
}

/** HEAD's commit, or null before the first commit. */
export function headCommit(root: string): string | null {
  const r = git(root, ["rev-parse", "--verify", "--quiet", "HEAD"]);
  const sha = r.out.trim();
  return r.ok && /^[0-9a-f]{7,64}$/.test(sha) ? sha : null;
}

/** Tracked plus untracked-not-ignored paths under `pathspecs`, relative to `root`, sorted, unique. */
export function listPackable(root: string, pathspecs: string[]): string[] {
  const r = git(root, ["ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", ...pathspecs]);
  if (!r.ok) throw new CliError(`git ls-files failed: ${r.err.trim()}`, { code: "GIT_FAILED" });
  return [...new Set(r.out.split("\0").filter(Boolean))].sort();
}

/**
 * Paths under `pathspecs` (relative to `root`) that differ from HEAD: modified, staged, deleted or
 * untracked-not-ignored. Porcelain paths are relative to the repository top, so the prefix is stripped.
 */
export function dirtyPaths(root: string, pathspecs: string[]): string[] {
  const prefix = git(root, ["rev-parse", "--show-prefix"]).out.trim();
  const r = git(root, ["status", "--porcelain=v1", "-z", "--untracked-files=all", "--", ...pathspecs]);
  if (!r.ok) throw new CliError(`git status failed: ${r.err.trim()}`, { code: "GIT_FAILED" });
  const fields = r.out.split("\0");
  const out: string[] = [];
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    if (f.length < 4) continue;
    const xy = f.slice(0, 2);
    const path = f.slice(3);
    out.push(path.startsWith(prefix) ? path.slice(prefix.length) : path);
    // A rename or copy is followed by its source path as a separate field.
    if (xy.includes("R") || xy.includes("C")) i++;
  }
  return [...new Set(out)].sort();
}
