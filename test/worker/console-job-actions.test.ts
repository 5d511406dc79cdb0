/**
 * The console job page's actions: each behind a confirmation page, refusals shown with their code, the
 * CSRF token required, a retry made once however often its form is sent, and a viewer's actions disabled.
 */
import { describe, expect, it } from "vitest";
import { badge, button, confirmAction, submit } from "./console-jobs-support.js";
import { csrfIn, signIn } from "./console-support.js";
import { ADMIN, api, createFleet, createUser } from "./helpers.js";

describe("job actions", () => {
  it("pauses and resumes after a confirmation page, and shows the new state", async () => {
    const op = await createUser("cj-act");
    await createFleet("cj-act");
    const id = await submit(op, "cj-act", "acted");
    const b = await signIn(op);
    const page = await b.get(`/console/jobs/${id}`);
    expect(button(page.html, "pause")).not.toContain("disabled");
    expect(button(page.html, "pause")).toContain('data-allowed="QUEUED RUNNING"');
    expect(button(page.html, "stop")).not.toContain("disabled");
    expect(button(page.html, "resume")).toContain('disabled=""');
    expect(button(page.html, "resume")).toContain('aria-describedby="why-resume"');
    expect(button(page.html, "resume")).toContain(
      'title="Resume is possible only when the job is PAUSED, STOPPED, FAILED"',
    );
    expect(button(page.html, "retry")).toContain('disabled=""');
    expect(page.html).toMatch(/<button[^>]*data-action="pause"[^>]*>Pause<\/button>/);

    const confirm = await b.post(`/console/jobs/${id}/pause`, {}, { from: page.html });
    expect(confirm.status).toBe(200);
    expect(confirm.html).toContain("<h1>Pause job acted?</h1>");
    expect(confirm.html).toMatch(/<button type="submit" class="primary">Confirm pause<\/button>/);
    expect(confirm.html).toContain('<input type="hidden" name="confirm" value="1"/>');
    expect(confirm.html).toContain(`<a class="button" href="/console/jobs/${id}">Cancel</a>`);
    expect(csrfIn(confirm.html)).toBe(csrfIn(page.html));
    // Asking is not doing.
    expect((await api(op, "GET", `/v1/jobs/${id}`)).body.job.status).toBe("QUEUED");

    const done = await b.post(
      `/console/jobs/${id}/pause`,
      { confirm: "1", reason: "lunch" },
      { from: confirm.html },
    );
    expect(done.status).toBe(303);
    expect(done.location).toBe(`/console/jobs/${id}`);
    const paused = await b.get(done.location!);
    expect(badge(paused.html)).toBe("PAUSED");
    expect(button(paused.html, "resume")).not.toContain("disabled");
    expect(button(paused.html, "pause")).toContain('disabled=""');
    const events = (await api(op, "GET", `/v1/jobs/${id}`)).body.events;
    expect(events.at(-1)).toMatchObject({ edge: "hold", detail: { reason: "lunch" } });

    const resumed = await confirmAction(b, id, "resume");
    expect(resumed.status).toBe(303);
    expect(badge((await b.get(`/console/jobs/${id}`)).html)).toBe("QUEUED");
  });

  it("shows a refused action on the job page with its code", async () => {
    const op = await createUser("cj-refuse");
    await createFleet("cj-refuse");
    const id = await submit(op, "cj-refuse", "refused");
    await api(op, "POST", `/v1/jobs/${id}/stop`);
    const b = await signIn(op);
    const page = await b.get(`/console/jobs/${id}`);
    // The button is disabled, but a stale page (or a hand-made form) can still send it: the API decides.
    const r = await b.post(`/console/jobs/${id}/pause`, { confirm: "1" }, { from: page.html });
    expect(r.status).toBe(409);
    expect(r.html).toContain("Pause was refused (INVALID_TRANSITION)");
    expect(r.html).toContain('role="alert"');
    expect(badge(r.html)).toBe("STOPPED");
    // Retry of a job that has not ended is refused the same way.
    const queued = await submit(op, "cj-refuse", "still-queued");
    const retry = await b.post(`/console/jobs/${queued}/retry`, { confirm: "1" }, { from: page.html });
    expect(retry.status).toBe(409);
    expect(retry.html).toContain("Retry was refused (INVALID_TRANSITION)");
    expect((await api(op, "GET", "/v1/jobs")).body.jobs).toHaveLength(2);
  });

  it("refuses an action without the CSRF token and changes nothing", async () => {
    const op = await createUser("cj-csrf");
    await createFleet("cj-csrf");
    const id = await submit(op, "cj-csrf", "guarded");
    const b = await signIn(op);
    const r = await b.post(`/console/jobs/${id}/stop`, { confirm: "1", _csrf: "wrong" });
    expect(r.status).toBe(403);
    expect(r.html).toContain("CSRF_REJECTED");
    expect((await api(op, "GET", `/v1/jobs/${id}`)).body.job.status).toBe("QUEUED");
  });

  it("stops, then retries as a new job with the same spec, once however often the form is sent", async () => {
    const op = await createUser("cj-retry");
    await createFleet("cj-retry");
    const id = await submit(op, "cj-retry", "again");
    const b = await signIn(op);
    const stop = await confirmAction(b, id, "stop", { reason: "wrong lr" });
    expect(stop.status).toBe(303);
    const stopped = await b.get(`/console/jobs/${id}`);
    expect(badge(stopped.html)).toBe("STOPPED");
    expect(button(stopped.html, "retry")).not.toContain("disabled");

    const confirm = await b.post(`/console/jobs/${id}/retry`, {}, { from: stopped.html });
    expect(confirm.html).toContain("<h1>Retry job again?</h1>");
    expect(confirm.html).toContain("Confirm retry</button>");
    const key = /name="key" value="([^"]+)"/.exec(confirm.html)![1]!;
    const sent = await b.post(`/console/jobs/${id}/retry`, { confirm: "1", key }, { from: confirm.html });
    expect(sent.status).toBe(303);
    const newId = /^\/console\/jobs\/(job_[0-9a-z]{26})$/.exec(sent.location ?? "")?.[1];
    expect(newId).toBeDefined();
    expect(newId).not.toBe(id);
    // The same confirmation sent twice (a double click) is one job.
    const twice = await b.post(`/console/jobs/${id}/retry`, { confirm: "1", key }, { from: confirm.html });
    expect(twice.location).toBe(sent.location);

    const jobs = (await api(op, "GET", "/v1/jobs")).body.jobs;
    expect(jobs.map((j: { id: string }) => j.id)).toEqual([newId, id]);
    const [fresh, old] = await Promise.all([
      api(op, "GET", `/v1/jobs/${newId}`),
      api(op, "GET", `/v1/jobs/${id}`),
    ]);
    expect(fresh.body.job.spec).toEqual(old.body.job.spec);
    expect(fresh.body.job.status).toBe("QUEUED");
    expect(old.body.job.status).toBe("STOPPED");
    const page = await b.get(sent.location!);
    expect(page.html).toContain("<h1>again</h1>");
    expect(badge(page.html)).toBe("QUEUED");
  });

  it("shows a viewer the actions disabled for want of the operator role, and the API refuses them", async () => {
    const op = await createUser("cj-view");
    await createFleet("cj-view");
    const id = await submit(op, "cj-view", "watched");
    expect((await api(ADMIN, "PATCH", "/v1/users/cj-view", { role: "viewer" })).status).toBe(200);
    const b = await signIn(op);
    const page = await b.get(`/console/jobs/${id}`);
    for (const a of ["stop", "pause", "resume", "retry"]) {
      const tag = button(page.html, a);
      expect(tag).toContain('disabled=""');
      expect(tag).toContain('data-allowed=""');
      expect(tag).toContain("needs the operator role");
    }
    const r = await b.post(`/console/jobs/${id}/stop`, { confirm: "1" }, { from: page.html });
    expect(r.status).toBe(403);
    expect(r.html).toContain("Stop was refused (FORBIDDEN)");
    expect(r.html).toContain("<h1>watched</h1>");
    expect((await api(ADMIN, "GET", `/v1/jobs/${id}`)).body.job.status).toBe("QUEUED");
  });
});
