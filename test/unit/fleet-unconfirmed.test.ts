/**
 * Admissions queued beside their reservation (the Worker asks the user's object and the fleet's at once):
 * the fleet decides the job as it decides any (queued with its admitted event, placed or told why it
 * waits), and until the reservation is confirmed holds back only what would tell anyone else: its outbox
 * entries (D1, webhooks) and its agents' commands (the Fleet DO's adapter). A withdrawn one is undone as
 * if never queued, and its id is never queued again. In memory, against the same rules the Fleet DO runs.
 */
import { describe, expect, it } from "vitest";
import { ADA, Fleet, TEST_QUOTA } from "./fleet-harness.js";

const reasons = (f: Fleet, id: string) =>
  (JSON.parse(f.job(id).pending_reasons) as Array<{ code: string }>).map((r) => r.code);

describe("an unconfirmed admission", () => {
  it("is decided as any submit (placed, or told why it waits) and only marked until its confirmation", () => {
    const f = new Fleet();
    const node = f.agent("gpu-a", 2);
    const placed = f.submit({ gpus: 2, unconfirmed: true });
    const waiting = f.submit({ gpus: 2, unconfirmed: true });
    expect(f.job(placed)).toMatchObject({ status: "SUBMITTED", unconfirmed: 1 });
    expect(f.s.allocatedOn(node)).toEqual([0, 1]);
    expect(f.job(waiting)).toMatchObject({ status: "QUEUED", unconfirmed: 1 });
    expect(reasons(f, waiting)).toEqual(["CAPACITY"]);
    f.checkInvariants();

    const before = f.job(placed).version;
    expect(f.confirm([placed, waiting])).toEqual([placed, waiting]);
    // Nothing a reader sees moved: the same status and version, no longer marked.
    expect(f.job(placed)).toMatchObject({ status: "SUBMITTED", unconfirmed: 0, version: before });
    expect(f.job(waiting)).toMatchObject({ status: "QUEUED", unconfirmed: 0 });
    // Confirming again, or an id never queued, changes nothing.
    expect(f.confirm([placed, "job_unknown00001"])).toEqual([]);
    f.checkInvariants();
  });

  it("takes the reservation's quota at confirmation: a lower priority than assumed is applied", () => {
    const f = new Fleet();
    const id = f.submit({ gpus: 1, unconfirmed: true, priority: 10 });
    const version = f.job(id).version;
    f.confirm([id], 3);
    expect(f.job(id)).toMatchObject({ priority: 3, unconfirmed: 0 });
    expect(f.job(id).version).toBeGreaterThan(version);
    const snapshot = f.s.outbox.findLast((e) => e.kind === "job" && e.job.id === id);
    expect(snapshot?.kind === "job" && snapshot.job.priority).toBe(3);
  });

  it("is undone when its reservation was refused: run, GPUs and outbox entries gone, the GPUs offered to the queue", () => {
    const f = new Fleet();
    const node = f.agent("gpu-a", 2);
    const refused = f.submit({ gpus: 2, unconfirmed: true });
    const next = f.submit({ gpus: 2 });
    const run = f.job(refused).current_run_id!;
    expect(f.job(next).status).toBe("QUEUED");
    expect(f.withdraw([refused])).toEqual([refused]);
    expect(f.s.job(refused)).toBeNull();
    expect(f.s.run(run)).toBeNull();
    expect(f.s.outbox.some((e) => JSON.stringify(e).includes(refused))).toBe(false);
    // The GPUs it held went to the job behind it.
    expect(f.job(next).status).toBe("SUBMITTED");
    expect(f.s.allocatedOn(node)).toEqual([0, 1]);
    // Its id is never queued again.
    const again = f.trySubmit({ jobId: refused, gpus: 1 });
    expect(again.ok ? "queued" : again.code).toBe("CONFLICT");
    f.checkInvariants();
  });

  it("is never withdrawn once confirmed", () => {
    const f = new Fleet();
    const id = f.submit({ gpus: 1, unconfirmed: true });
    f.confirm([id]);
    expect(f.withdraw([id])).toEqual([]);
    expect(f.job(id).status).toBe("QUEUED");
  });

  it("refuses a user's action until it is confirmed (the answer leaves a moment before the confirmation)", () => {
    const f = new Fleet();
    const id = f.submit({ gpus: 1, unconfirmed: true });
    expect(f.act(id, "stop", ADA)).toMatchObject({ ok: false, code: "CONFLICT" });
    f.confirm([id]);
    expect(f.act(id, "stop", ADA)).toMatchObject({ ok: true });
    expect(f.job(id).status).toBe("STOPPED");
  });

  it("is confirmed by the user's object settling its reservation, which answers with its quota", () => {
    const f = new Fleet();
    const id = f.submit({ gpus: 1, unconfirmed: true });
    const settled = f.decide({ type: "settle_admissions", jobIds: [id], quota: TEST_QUOTA }).result;
    expect(settled[id]).toMatchObject({ status: "QUEUED" });
    expect(f.job(id).unconfirmed).toBe(0);
  });

  it("held by a drain meanwhile, stays held once confirmed and leaves the drain report if withdrawn", () => {
    const f = new Fleet();
    const held = f.submit({ gpus: 1, unconfirmed: true });
    const gone = f.submit({ gpus: 1, unconfirmed: true });
    const report = f.decide({ type: "drain", note: "patching" }).result;
    expect(report.held.sort()).toEqual([held, gone].sort());
    f.confirm([held]);
    f.withdraw([gone]);
    expect(f.job(held).status).toBe("PAUSED");
    const after = f.decide({ type: "undrain" }).result;
    expect(after.resumed).toEqual([held]);
    f.checkInvariants();
  });
});
