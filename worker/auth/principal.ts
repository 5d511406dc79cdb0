import type { Role } from "../../contract/api.schema.js";

/** Who is calling: a person with a personal access token, or an enrolled agent. */
export type Principal =
  | { kind: "user"; userId: string; name: string; role: Role; tokenId: string }
  | { kind: "agent"; nodeId: string; fleetId: string };

/** What a request carries between middleware and routes. */
export type AppVars = {
  principal: Principal;
  /** Set by a submit answered 201: its fleet and how many jobs it admitted (the admissions metric). */
  admitted?: Admitted;
};

export interface Admitted {
  fleetId: string;
  jobs: number;
}
