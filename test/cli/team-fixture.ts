/**
 * The scene of the team tests (admin-teams, usage-teams): the shared control plane, an admin's sf, this
 * file's fleet with one agent and one without nodes (what goes there waits), and a user with a project on
 * the fleet. Teams and users are deployment-wide: each file names its own.
 */
import type { ControlPlane } from "../support/control-plane.js";
import type { ForgeletProc } from "../support/forgelet.js";
import { newSfHome, type SfEnv } from "../support/sf.js";
import { fleetWithAgent, newFleet, sharedControlPlane, unique } from "../support/shared-control-plane.js";
import { makeProject, type Project, type Server, serverUser } from "./submit-fixture.js";

export interface TeamScene {
  cp: ControlPlane;
  admin: SfEnv;
  fleet: string;
  empty: string;
  agent: ForgeletProc;
  s: Server;
  p: Project;
}

export async function teamScene(o: {
  name: string;
  gpus: number;
  user: string;
  exp: string;
}): Promise<TeamScene> {
  const cp = sharedControlPlane();
  const admin = { home: newSfHome(), server: cp.url, env: { SF_TOKEN: cp.adminToken } };
  const { fleet, agent } = await fleetWithAgent(cp, o.name, { gpus: o.gpus });
  const empty = await newFleet(cp, `${o.name}-empty`);
  const s = await serverUser(cp, o.user);
  const p = await makeProject(s, { fleet, project: unique(o.name), exp: o.exp });
  return { cp, admin, fleet, empty, agent, s, p };
}
