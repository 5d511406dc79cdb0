import type { Role } from "../../contract/api.schema.js";

/** Who is calling: a person with a personal access token, or an enrolled agent. */
export type Principal =
  | { kind: "user"; userId: string; name: string; role: Role; tokenId: string }
  | { kind: "agent"; nodeId: string; fleetId: string };

export type AppVars = { principal: Principal };
