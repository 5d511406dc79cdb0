/** The Run DO as the Worker and the Fleet DO call it (one object per run, named by the run's id). */
import { type Namespace, type Rpc, stubOf } from "../rpc.js";
import type { RunDO } from "./run.do.js";

export function runStub(env: { RUN: Namespace }, runId: string): Rpc<RunDO> {
  return stubOf<RunDO>(env.RUN, runId);
}
