/** The Fleet DO as the Worker calls it (one object per fleet, named by the fleet's id). */
import { type Namespace, type Rpc, stubOf } from "../rpc.js";
import type { FleetDO } from "./fleet.do.js";

export function fleetStub(env: { FLEET: Namespace }, fleetId: string): Rpc<FleetDO> {
  return stubOf<FleetDO>(env.FLEET, fleetId);
}
