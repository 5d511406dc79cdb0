/** The slurmrestd API versions forgelet speaks, one adapter each. */
import type { SlurmApi } from "./api.js";
import type { SlurmRest } from "./rest.js";
import { V0038 } from "./v0038.js";

export const SLURM_API_VERSIONS = ["v0.0.38"] as const;

export function slurmApi(version: string, rest: SlurmRest): SlurmApi {
  if (version === "v0.0.38") return new V0038(rest);
  throw new Error(
    `unsupported slurmrestd API version "${version}"; supported: ${SLURM_API_VERSIONS.join(", ")} (docs/runtimes.md)`,
  );
}
