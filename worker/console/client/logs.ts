/**
 * The job page's Logs tab: the server rendered the first page into `ol#log-lines`; this adds the live tail
 * (an EventSource on /console/api/jobs/<id>/logs?follow=1 from the page's next cursor: when the connection
 * drops, the browser reconnects with Last-Event-ID and the server resumes right after the last line seen,
 * so nothing is missed or repeated), the search as you type (a class on each line, never HTML), the
 * rank/stream filters applied on change, scrolling that follows new lines only when the reader is at the
 * bottom, and a polite announcement of how many lines arrived, at most every few seconds. A line a
 * diagnosis links to (`?at=<cursor>#log-<cursor>`, `li.log-target`) is brought to the middle of the box
 * and the window, with the lines before it in view (without the script, the fragment does it).
 */

/** Lines kept on the page; older ones leave the DOM (the download has them all). */
const MAX_LINES = 20_000;
const ANNOUNCE_MS = 5000;

interface TailLine {
  cursor: number;
  rank: number;
  stream: string;
  line: string;
}

function lineItem(l: TailLine): HTMLLIElement {
  const li = document.createElement("li");
  li.dataset.offset = String(l.cursor);
  li.dataset.rank = String(l.rank);
  li.dataset.stream = l.stream;
  const meta = document.createElement("span");
  meta.className = "log-meta";
  meta.textContent = `${l.rank} ${l.stream}`;
  const text = document.createElement("span");
  text.className = "log-text";
  text.textContent = l.line;
  li.append(meta, " ", text);
  return li;
}

function textOf(li: HTMLElement): string {
  return (li.querySelector(".log-text")?.textContent ?? "").toLowerCase();
}

/** Marks `li` as a hit or a miss of `needle` (lower case; empty: neither). */
function mark(li: HTMLElement, needle: string): boolean {
  if (!needle) {
    li.classList.remove("log-hit", "log-miss");
    return true;
  }
  const hit = textOf(li).includes(needle);
  li.classList.toggle("log-hit", hit);
  li.classList.toggle("log-miss", !hit);
  return hit;
}

export function initLogs(root: Document): void {
  const box = root.querySelector<HTMLElement>("[data-logs]");
  const list = root.getElementById("log-lines");
  if (!box || !list) return;
  const scroller = box.querySelector<HTMLElement>("[data-log-box]") ?? list;
  const search = root.getElementById("log-search") as HTMLInputElement | null;
  const count = root.getElementById("log-count");
  const status = root.getElementById("log-status");
  let needle = (search?.value ?? "").trim().toLowerCase();

  const recount = () => {
    if (!count) return;
    const total = list.children.length;
    if (!needle) {
      count.textContent = `${total} line${total === 1 ? "" : "s"}${box.dataset.live === "1" ? "; new lines appear as the run writes them" : ""}`;
      return;
    }
    const hits = list.querySelectorAll("li.log-hit").length;
    count.textContent = `${hits} of ${total} lines match`;
  };

  const target = list.querySelector<HTMLElement>("li.log-target");
  target?.scrollIntoView({ block: "center" });

  search?.addEventListener("input", () => {
    needle = search.value.trim().toLowerCase();
    for (const li of list.children) mark(li as HTMLElement, needle);
    recount();
  });
  // Rank and stream choose which lines the server sends: a change reloads with them.
  for (const sel of box.querySelectorAll<HTMLSelectElement>("select[data-autosubmit]")) {
    sel.addEventListener("change", () => sel.form?.requestSubmit());
  }

  if (box.dataset.live !== "1") return;
  const job = box.dataset.job!;
  const run = box.dataset.run!;
  const rank = box.dataset.rank;
  const stream = box.dataset.stream;
  // The tail sends every line from the cursor on; the "next lines" link is no longer needed.
  box.querySelector("[data-log-more]")?.remove();

  let unannounced = 0;
  let lastAnnounce = 0;
  let timer = 0;
  const announce = () => {
    timer = 0;
    if (!status || unannounced === 0) return;
    status.textContent = `${unannounced} new line${unannounced === 1 ? "" : "s"}`;
    unannounced = 0;
    lastAnnounce = Date.now();
  };
  const noteNew = (n: number) => {
    unannounced += n;
    if (timer) return;
    const wait = Math.max(0, lastAnnounce + ANNOUNCE_MS - Date.now());
    timer = window.setTimeout(announce, wait);
  };

  // Lines arrive one event each; they are added once per frame so a burst is one layout.
  let pending: TailLine[] = [];
  let frame = 0;
  const flush = () => {
    frame = 0;
    const batch = pending;
    pending = [];
    const atBottom = scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 24;
    const frag = document.createDocumentFragment();
    let added = 0;
    for (const l of batch) {
      if (rank !== undefined && String(l.rank) !== rank) continue;
      if (stream !== undefined && l.stream !== stream) continue;
      const li = lineItem(l);
      mark(li, needle);
      frag.append(li);
      added++;
    }
    if (added === 0) return;
    list.append(frag);
    while (list.children.length > MAX_LINES) list.firstElementChild?.remove();
    if (atBottom) scroller.scrollTop = scroller.scrollHeight;
    recount();
    noteNew(added);
  };

  const next = box.dataset.next ?? "0";
  const url = `/console/api/jobs/${encodeURIComponent(job)}/logs?run=${encodeURIComponent(run)}&follow=1&offset=${encodeURIComponent(next)}`;
  const source = new EventSource(url);
  source.onmessage = (e) => {
    let l: TailLine;
    try {
      l = JSON.parse(e.data) as TailLine;
    } catch {
      return;
    }
    pending.push(l);
    if (!frame) frame = requestAnimationFrame(flush);
  };
  source.addEventListener("end", () => {
    source.close();
    delete box.dataset.live;
    if (frame) {
      cancelAnimationFrame(frame);
      flush();
    }
    recount();
    window.clearTimeout(timer);
    const fresh = unannounced > 0 ? `${unannounced} new line${unannounced === 1 ? "" : "s"}. ` : "";
    if (status) status.textContent = `${fresh}The run is over; its log is complete.`;
  });
  source.onerror = () => {
    // EventSource reconnects by itself (with Last-Event-ID); CLOSED means it gave up (e.g. signed out).
    if (source.readyState === EventSource.CLOSED && status) {
      status.textContent = "The live log stopped; reload the page to follow it again.";
    }
  };
}
