/**
 * Live updates without a reload. The jobs list (`[data-live-jobs]` holds its query through /console/api)
 * is polled every 3 s with If-None-Match, so an unchanged list costs a 304; each row's state badge and
 * duration change in place. The job page's header (`[data-live-job]`) is polled every 2 s: its state badge
 * and which action buttons are enabled follow the job. Only textContent, classes and attributes change;
 * a polite live region says when something did. Polling pauses while the tab is hidden. The one block
 * replaced whole is why the latest run failed (`[data-diagnosis-slot]`): when the job turns FAILED or the
 * API's diagnosis differs from the one shown, the slot is taken from a fresh copy of the page, as the
 * server rendered (and escaped) it, parsed inert by DOMParser.
 */
import { formatDuration } from "../../../contract/time.js";
import { initLocalTimes } from "./time.js";

const JOBS_EVERY_MS = 3000;
const JOB_EVERY_MS = 2000;
/** contract/job-states.ts RESTING_STATES: a job there has an end time. */
const RESTING = new Set(["SUCCEEDED", "FAILED", "STOPPED", "PAUSED"]);

interface LiveJob {
  id: string;
  status: string;
  started_at?: string | null;
  ended_at?: string | null;
}

function setBadge(el: Element, status: string): boolean {
  if (el.textContent === status) return false;
  el.textContent = status;
  for (const c of [...el.classList]) if (c.startsWith("state-")) el.classList.remove(c);
  el.classList.add(`state-${status}`);
  return true;
}

/** Re-renders a `[data-duration]` cell from its data-started / data-ended (ended absent: up to now). */
function tickDuration(el: HTMLElement): void {
  const started = el.dataset.started;
  if (!started) return;
  const ended = el.dataset.ended;
  const text = formatDuration((ended ? Date.parse(ended) : Date.now()) - Date.parse(started));
  if (el.textContent !== text) el.textContent = text;
}

function setTimes(el: HTMLElement, started: string | null | undefined, ended: string | null | undefined) {
  if (started) el.dataset.started = started;
  else delete el.dataset.started;
  if (ended) el.dataset.ended = ended;
  else delete el.dataset.ended;
  if (started) tickDuration(el);
  else el.textContent = "—";
}

function clock(): string {
  return new Date().toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit", second: "2-digit" });
}

function say(status: Element | null, text: string): void {
  if (status && status.textContent !== text) status.textContent = text;
}

/** Runs `tick` every `ms` while the page is visible, one at a time. */
function every(ms: number, tick: () => Promise<void>): void {
  let busy = false;
  setInterval(() => {
    if (busy || document.visibilityState === "hidden") return;
    busy = true;
    tick()
      .catch(() => undefined)
      .finally(() => {
        busy = false;
      });
  }, ms);
}

function initJobsList(root: Document): void {
  const holder = root.querySelector<HTMLElement>("[data-live-jobs]");
  const src = holder?.dataset.liveJobs;
  if (!holder || !src?.startsWith("/console/api/")) return;
  const status = root.querySelector("[data-live-status]");
  let etag = "";
  every(JOBS_EVERY_MS, async () => {
    const res = await fetch(src, {
      headers: etag ? { "if-none-match": etag, accept: "application/json" } : { accept: "application/json" },
      credentials: "same-origin",
    });
    for (const el of holder.querySelectorAll<HTMLElement>("[data-duration]")) tickDuration(el);
    if (res.status === 304) return;
    if (!res.ok) {
      say(
        status,
        res.status === 401 ? "Live updates stopped: sign in again." : `Live updates failed (${res.status}).`,
      );
      return;
    }
    etag = res.headers.get("etag") ?? "";
    const body = (await res.json()) as { jobs: LiveJob[] };
    let changed = 0;
    for (const job of body.jobs) {
      const row = holder.querySelector<HTMLElement>(`tr[data-job-id="${CSS.escape(job.id)}"]`);
      if (!row) continue;
      const badge = row.querySelector("[data-job-state]");
      if (badge && setBadge(badge, job.status)) changed++;
      const d = row.querySelector<HTMLElement>("[data-duration]");
      if (d) setTimes(d, job.started_at, job.ended_at);
    }
    if (changed) say(status, `Updated ${clock()}: ${changed} job${changed === 1 ? "" : "s"} changed state.`);
  });
}

/**
 * Replaces the page's diagnosis slot with the one of a fresh copy of this page. Answers whether it did,
 * and the class now shown (null while pending or when there is none).
 */
async function refreshDiagnosis(root: Document, slot: HTMLElement): Promise<{ cls: string | null } | null> {
  const res = await fetch(location.href, { headers: { accept: "text/html" }, credentials: "same-origin" });
  if (!res.ok) return null;
  const fresh = new DOMParser()
    .parseFromString(await res.text(), "text/html")
    .querySelector<HTMLElement>("[data-diagnosis-slot]");
  if (!fresh) return null;
  const adopted = root.importNode(fresh, true);
  initLocalTimes(adopted);
  slot.replaceWith(adopted);
  return { cls: adopted.querySelector("[data-diagnosis-class]")?.textContent ?? null };
}

function initJobPage(root: Document): void {
  const head = root.querySelector<HTMLElement>("[data-live-job]");
  const id = head?.dataset.liveJob;
  if (!head || !id) return;
  const badge = head.querySelector("[data-job-state]");
  const status = head.querySelector("[data-live-status]");
  let lastStatus = badge?.textContent ?? "";
  // The diagnosis the slot was last rendered for: one fetch of the page per change the API shows.
  let shownFor = head.querySelector<HTMLElement>("[data-diagnosis-slot]")?.dataset.diagnosedAt ?? "";
  every(JOB_EVERY_MS, async () => {
    const res = await fetch(`/console/api/jobs/${encodeURIComponent(id)}`, {
      headers: { accept: "application/json" },
      credentials: "same-origin",
    });
    for (const el of head.querySelectorAll<HTMLElement>("[data-duration]")) tickDuration(el);
    if (!res.ok) return;
    const { job, runs, diagnosis } = (await res.json()) as {
      job: LiveJob;
      runs: Array<{ allocated_at: string | null; ended_at: string | null }>;
      /** The latest run's (absent from older servers). */
      diagnosis?: { diagnosed_at?: string } | null;
    };
    // The header's timings as the server computes them: first run's start; last run's end once at rest.
    const d = head.querySelector<HTMLElement>("[data-duration]");
    if (d && Array.isArray(runs)) {
      const ended = RESTING.has(job.status) ? (runs.at(-1)?.ended_at ?? null) : null;
      setTimes(d, runs[0]?.allocated_at ?? null, ended);
    }
    if (badge && setBadge(badge, job.status)) {
      say(status, `Updated ${clock()}: the job is ${job.status}. Reload for its details.`);
    }
    for (const btn of head.querySelectorAll<HTMLButtonElement>("button[data-action]")) {
      const allowed = (btn.dataset.allowed ?? "").split(" ").filter(Boolean);
      const ok = allowed.includes(job.status);
      if (btn.disabled === !ok) continue;
      btn.disabled = !ok;
      const why = ok ? "" : (btn.dataset.why ?? "");
      if (why) btn.title = why;
      else btn.removeAttribute("title");
      const note = head.querySelector(`[data-why-for="${CSS.escape(btn.dataset.action ?? "")}"]`);
      if (note) note.textContent = why;
    }
    const slot = head.querySelector<HTMLElement>("[data-diagnosis-slot]");
    const failedNow = job.status === "FAILED" && lastStatus !== "FAILED";
    const diagnosedAt = diagnosis?.diagnosed_at ?? "";
    lastStatus = job.status;
    if (slot && (failedNow || diagnosedAt !== shownFor)) {
      // Remembered once the slot is replaced: a page that failed to load is asked for again next time.
      const shown = await refreshDiagnosis(root, slot);
      if (shown) shownFor = diagnosedAt;
      if (shown?.cls)
        say(status, `Updated ${clock()}: the run failed with ${shown.cls}; the diagnosis is at the top.`);
    }
  });
}

export function initLive(root: Document): void {
  initJobsList(root);
  initJobPage(root);
}
