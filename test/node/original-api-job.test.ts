/**
 * Tier 3: a training script written for the original platform's `starforge.report` API (init with
 * hparams, log with a prefix, the HuggingFace callback in a fake trainer loop, finish) runs unchanged as
 * a job on the local fleet (process runtime); its metrics, hparams and CPU/memory samples read back.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ControlPlane } from "../support/control-plane.js";
import type { ForgeletProc } from "../support/forgelet.js";
import { waitForStatus } from "../support/jobs.js";
import { submitCustom } from "../support/lifecycle.js";
import { expectOriginalApiReports, originalApiWorkspace } from "../support/original-api-job.js";
import { fleetWithAgent, newUser, sharedControlPlane } from "../support/shared-control-plane.js";
import { uploadWorkspace } from "../support/workspace.js";

let cp: ControlPlane;
let token = "";
let fleet = "";
let agent: ForgeletProc | undefined;

beforeAll(async () => {
  cp = sharedControlPlane();
  ({ fleet, agent } = await fleetWithAgent(cp, "original-api"));
  token = (await newUser(cp, "grace")).token;
});

afterAll(async () => {
  await agent?.dispose();
});

describe("a job written for the original starforge.report API (process runtime)", () => {
  it("runs unchanged and reads back its metrics, hparams and CPU/memory samples", async () => {
    const workspace = await uploadWorkspace(cp.url, token, originalApiWorkspace("exp"));
    const id = await submitCustom(cp, token, {
      name: "original-api",
      fleet,
      workspace,
      maxRetries: 0,
    });
    const done = await waitForStatus(cp, token, id, ["SUCCEEDED", "FAILED", "STOPPED"], 120_000);
    expect(done.job.status, JSON.stringify(done.runs)).toBe("SUCCEEDED");
    await expectOriginalApiReports(cp, token, id);
  });
});
