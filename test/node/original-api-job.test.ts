/**
 * Tier 3: a training script written for the original platform's `starforge.report` API (init with
 * hparams, log with a prefix, the HuggingFace callback in a fake trainer loop, finish) runs unchanged as
 * a job on the local fleet (process runtime); its metrics, hparams and CPU/memory samples read back.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ControlPlane, startControlPlane } from "../support/control-plane.js";
import { waitForStatus } from "../support/jobs.js";
import { newOperator, submitCustom } from "../support/lifecycle.js";
import { expectOriginalApiReports, originalApiWorkspace } from "../support/original-api-job.js";
import { uploadWorkspace } from "../support/workspace.js";

let cp: ControlPlane;
let token = "";

beforeAll(async () => {
  cp = await startControlPlane();
  token = await newOperator(cp, "grace");
});

afterAll(async () => {
  await cp?.stop();
});

describe("a job written for the original starforge.report API (process runtime)", () => {
  it("runs unchanged and reads back its metrics, hparams and CPU/memory samples", async () => {
    const workspace = await uploadWorkspace(cp.url, token, originalApiWorkspace("exp"));
    const id = await submitCustom(cp, token, {
      name: "original-api",
      fleet: "local",
      workspace,
      maxRetries: 0,
    });
    const done = await waitForStatus(cp, token, id, ["SUCCEEDED", "FAILED", "STOPPED"], 120_000);
    expect(done.job.status, JSON.stringify(done.runs)).toBe("SUCCEEDED");
    await expectOriginalApiReports(cp, token, id);
  });
});
