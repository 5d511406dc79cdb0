/**
 * One control plane per vitest project (the `cli` and `node` tiers), started once by the project's
 * globalSetup (test/support/global-control-plane.ts) exactly as `npm start --no-agent` starts it, and shared
 * by the project's files. A file isolates itself by what it creates: its own users, tokens, fleets, agents
 * and projects, under names made unique by `unique()`, and it never counts what it did not create. A file
 * that truly needs a control plane of its own (a restart, a crash, its state directory, a deployment-wide
 * setting) starts one with startControlPlane() and says why in its first comment.
 */
import { inject } from "vitest";
import { type ControlPlane, call } from "./control-plane.js";
import { enrollForgelet, type ForgeletProc } from "./forgelet.js";

/** What a globalSetup hands to the project's files (plain data: it crosses into the test workers). */
export interface SharedPlaneInfo {
  url: string;
  adminToken: string;
  stateDir: string;
  pgid: number;
  /** The deployment-wide settings it was started with (test/support/global-control-plane.ts). */
  vars: Record<string, string>;
}

declare module "vitest" {
  export interface ProvidedContext {
    controlPlane: SharedPlaneInfo;
  }
}

/**
 * The project's shared control plane. `stop()` does nothing (the globalSetup stops it after the last
 * file), and `output()` is empty: its output goes to the run's own log.
 */
export function sharedControlPlane(): ControlPlane {
  const info = inject("controlPlane");
  if (!info?.url) {
    throw new Error(
      "no shared control plane: this file runs in a vitest project whose globalSetup starts one (cli, node)",
    );
  }
  const { vars: _vars, ...plane } = info;
  return { ...plane, output: () => "", stop: async () => {} };
}

/** The deployment-wide settings (wrangler.toml [vars] overrides) the shared plane runs with. */
export function sharedControlPlaneVars(): Record<string, string> {
  return inject("controlPlane")?.vars ?? {};
}

let counter = 0;
const RUN = `${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}`;

/**
 * A name no other file (nor an earlier run of this one against the same plane) uses: `prefix-<suffix>`,
 * lowercase letters, digits and '-', so it is valid as a user, fleet, profile or project name.
 */
export function unique(prefix: string): string {
  counter += 1;
  return `${prefix}-${RUN}${counter.toString(36)}`;
}

/** A new user with `role` under a unique name: its name and token. */
export async function newUser(
  cp: Pick<ControlPlane, "url" | "adminToken">,
  prefix: string,
  role: "admin" | "operator" | "viewer" = "operator",
): Promise<{ name: string; token: string; id: string }> {
  const name = unique(prefix);
  const r = await call(cp, cp.adminToken, "POST", "/v1/users", { name, role });
  if (r.status !== 201) throw new Error(`creating user ${name}: ${r.status} ${JSON.stringify(r.body)}`);
  const user = r.body.user as { id: string } | undefined;
  return { name, token: String(r.body.token), id: String(user?.id ?? "") };
}

/** A new process fleet under a unique name (no nodes: what is submitted there stays QUEUED). */
export async function newFleet(
  cp: Pick<ControlPlane, "url" | "adminToken">,
  prefix: string,
): Promise<string> {
  const name = unique(prefix);
  const r = await call(cp, cp.adminToken, "POST", "/v1/fleets", { name, kind: "process" });
  if (r.status !== 201) throw new Error(`creating fleet ${name}: ${r.status} ${JSON.stringify(r.body)}`);
  return name;
}

/**
 * A new fleet with one local forgelet in it (process runtime, `gpus` simulated H200s), as `npm start` sets
 * up its "local" fleet; dispose() the agent in afterAll.
 */
export async function fleetWithAgent(
  cp: ControlPlane,
  prefix: string,
  o: { gpus?: number; env?: Record<string, string>; args?: string[] } = {},
): Promise<{ fleet: string; agent: ForgeletProc }> {
  const fleet = await newFleet(cp, prefix);
  const agent = await enrollForgelet(cp, fleet, {
    name: `${fleet}-1`,
    gpus: o.gpus ?? 8,
    env: o.env,
    args: o.args,
  });
  return { fleet, agent };
}
