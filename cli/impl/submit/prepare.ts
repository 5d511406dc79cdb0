/**
 * The checks and the upload shared by `sf submit` and `sf sweep`, in the order that keeps a refused
 * submit from sending anything:
 *
 *   offline  project, experiment, lock (well-formed, matches config.method), --profile syntax;
 *            the caller then types hyperparameters, so a typo fails without a server or a login
 *   remote   profiles (expand --profile) and catalog (handshake) — both read-only
 *   local    list the whitelist with git; refuse secret files and escaping symlinks; then the dirty
 *            check (secrets first, so an untracked .env is met with "ignore it", never "commit it")
 *   upload   hash, HEAD every blob, PUT only the missing ones
 */
import type { Command } from "commander";
import { digestOf } from "../../../contract/digest.js";
import type { Pool } from "../../../contract/profile-grammar.js";
import type { RecipeLock } from "../../../contract/recipe-lock.schema.js";
import type { Api } from "../../api.js";
import { authedApi } from "../../context.js";
import { CliError, EXIT } from "../../errors.js";
import { c, info, withSpinner } from "../../output.js";
import { type Experiment, findProjectRoot, readExperiment, readProject } from "../../project.js";
import { dirtyPaths, headCommit, requireWorkTree } from "./git.js";
import { checkProfileSyntax, expand, fetchCatalog, fetchProfiles, handshake } from "./handshake.js";
import { hashWorkspace, listed, scanWorkspace, whitelist } from "./pack.js";
import { requireLock } from "./params.js";
import { type UploadStats, uploadPack } from "./upload.js";

export interface Local {
  root: string;
  project: string;
  /** starforge.yaml's default fleet. */
  projectFleet: string | undefined;
  exp: Experiment;
  lock: RecipeLock;
}

export interface Remote {
  api: Api;
  pools: Pool[];
  roles: Record<string, string>;
  workspace: string;
  provenance: { git_commit: string | null; git_dirty: boolean; config_sha: string };
  upload: UploadStats;
}

export function loadLocal(expName: string, profiles: readonly string[] = []): Local {
  const root = findProjectRoot();
  const project = readProject(root);
  const exp = readExperiment(root, expName);
  const lock = requireLock(exp);
  checkProfileSyntax(profiles);
  return { root, project: project.project, projectFleet: project.fleet, exp, lock };
}

export async function prepareRemote(
  cmd: Command,
  local: Local,
  o: { profile?: string[]; allowDirty?: boolean },
): Promise<Remote> {
  const { root, exp, lock } = local;
  const api = authedApi(cmd);
  const [registry, catalog] = await withSpinner("checking profiles and catalog", () =>
    Promise.all([fetchProfiles(api), fetchCatalog(api)]),
  );
  const { pools, roles } = expand(o.profile ?? [], registry);
  handshake(catalog, lock, exp.name);

  requireWorkTree(root);
  const paths = whitelist(exp.relDir);
  const scanned = scanWorkspace(root, paths);
  const commit = headCommit(root);
  const dirty = dirtyPaths(root, paths);
  if (dirty.length > 0 && !o.allowDirty) {
    const one = dirty.length === 1;
    const what = commit
      ? `${one ? "differs" : "differ"} from the last commit`
      : `${one ? "is" : "are"} not committed (the repository has no commit yet)`;
    throw new CliError(`${dirty.length} packed file${one ? "" : "s"} ${what}: ${listed(dirty)}`, {
      code: "DIRTY_TREE",
      exit: EXIT.REJECTED,
      hint: "commit them so the job is reproducible, or pass --allow-dirty (recorded as git_dirty in the job)",
    });
  }
  if (dirty.length > 0)
    info(
      c.yellow(
        `submitting ${dirty.length} uncommitted change${dirty.length === 1 ? "" : "s"} (git_dirty: true)`,
      ),
    );

  const pack = await withSpinner(`hashing ${scanned.length} files`, () => hashWorkspace(scanned));
  const upload = await uploadPack(api, pack);
  return {
    api,
    pools,
    roles,
    workspace: pack.manifestDigest,
    provenance: {
      git_commit: commit,
      git_dirty: dirty.length > 0,
      config_sha: await digestOf(exp.configText),
    },
    upload,
  };
}
