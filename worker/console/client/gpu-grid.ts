/**
 * The fleet page's GPU grid, kept live: every 2 s it reads /console/api/fleets/<fleet> (GET /v1/fleets/:fleet
 * as the signed-in user) and updates each `[data-gpu="<node>:<index>"]` cell in place: its data-job-id,
 * class, text and aria-label. A job's name comes from /console/api/jobs/<id> (cached): a 403 there means
 * another user's job, shown without its name. Text only (textContent / createElement), never HTML.
 */

interface GpuSlot {
  index: number;
  job_id: string | null;
}
interface FleetAnswer {
  nodes: Array<{ name: string; gpus: GpuSlot[] }>;
}

type Label = { kind: "visible"; name: string } | { kind: "other" } | { kind: "unknown" };

const POLL_MS = 2000;

export function holderText(jobId: string, label: Label | undefined): string {
  if (!jobId) return "free";
  if (label?.kind === "visible") return `held by job ${label.name}`;
  if (label?.kind === "other") return "held by another user's job";
  return "held by a job";
}

/** Rewrites one cell for `jobId` (empty: free), leaving it alone when nothing it shows changed. */
export function paintCell(cell: HTMLElement, jobId: string, label: Label | undefined): void {
  const [node, index] = splitKey(cell.dataset.gpu ?? "");
  const text = holderText(jobId, label);
  const aria = `GPU ${index} on ${node}: ${text}`;
  if (cell.dataset.jobId === jobId && cell.getAttribute("aria-label") === aria) return;
  cell.dataset.jobId = jobId;
  cell.setAttribute("aria-label", aria);
  cell.className = !jobId ? "gpu free" : label?.kind === "visible" ? "gpu held mine" : "gpu held other";
  let holder = cell.querySelector<HTMLElement>(".gpu-holder");
  if (!holder) {
    holder = document.createElement("span");
    holder.className = "gpu-holder";
    cell.append(holder);
  }
  holder.replaceChildren();
  if (jobId && label?.kind === "visible") {
    const a = document.createElement("a");
    a.href = `/console/jobs/${encodeURIComponent(jobId)}`;
    a.textContent = label.name;
    holder.append(a);
  } else {
    holder.textContent = !jobId ? "free" : label?.kind === "other" ? "another user's job" : "a job";
  }
}

function splitKey(key: string): [string, string] {
  const at = key.lastIndexOf(":");
  return at < 0 ? [key, ""] : [key.slice(0, at), key.slice(at + 1)];
}

export function initGpuGrid(root: Document): void {
  const grid = root.querySelector<HTMLElement>("[data-live-fleet]");
  const fleet = grid?.dataset.liveFleet;
  if (!grid || !fleet) return;
  const labels = new Map<string, Label>();
  // What the server rendered is known already: a link names a visible job, else whose it is.
  for (const cell of grid.querySelectorAll<HTMLElement>("[data-gpu]")) {
    const id = cell.dataset.jobId;
    if (!id) continue;
    const link = cell.querySelector(".gpu-holder a");
    if (link) labels.set(id, { kind: "visible", name: link.textContent ?? id });
    else if (cell.classList.contains("other") && /another user/.test(cell.textContent ?? ""))
      labels.set(id, { kind: "other" });
  }

  async function label(id: string): Promise<Label> {
    const known = labels.get(id);
    if (known) return known;
    const res = await fetch(`/console/api/jobs/${encodeURIComponent(id)}`, {
      headers: { accept: "application/json" },
    });
    let l: Label = { kind: "unknown" };
    if (res.ok) {
      const body = (await res.json()) as { job?: { name?: string } };
      l = { kind: "visible", name: body.job?.name ?? id };
    } else if (res.status === 403) l = { kind: "other" };
    else await res.body?.cancel();
    // Not found yet (the ledger lags the fleet for a moment): asked again at the next poll.
    if (l.kind !== "unknown") labels.set(id, l);
    return l;
  }

  let stopped = false;
  async function poll(): Promise<void> {
    if (stopped) return;
    try {
      const res = await fetch(`/console/api/fleets/${encodeURIComponent(fleet!)}`, {
        headers: { accept: "application/json" },
      });
      if (res.status === 401) {
        stopped = true;
        grid!.dataset.liveState = "signed-out";
        return;
      }
      if (res.ok) {
        const answer = (await res.json()) as FleetAnswer;
        const cells = new Map<string, HTMLElement>();
        for (const cell of grid!.querySelectorAll<HTMLElement>("[data-gpu]"))
          cells.set(cell.dataset.gpu ?? "", cell);
        for (const node of answer.nodes) {
          for (const g of node.gpus) {
            const cell = cells.get(`${node.name}:${g.index}`);
            if (!cell) continue;
            const id = g.job_id ?? "";
            paintCell(cell, id, id ? await label(id) : undefined);
          }
        }
        grid!.dataset.liveState = "live";
      }
    } catch {
      grid!.dataset.liveState = "retrying";
    }
    if (!stopped) setTimeout(poll, POLL_MS);
  }
  setTimeout(poll, POLL_MS);
}
