/** <time data-local-time datetime="…Z"> shown in the viewer's own time zone (the server sends UTC). */
const format = new Intl.DateTimeFormat(undefined, {
  year: "numeric",
  month: "short",
  day: "numeric",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
  timeZoneName: "short",
});

export function localTime(iso: string): string {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? iso : format.format(t);
}

export function initLocalTimes(root: ParentNode): void {
  for (const el of root.querySelectorAll<HTMLTimeElement>("time[data-local-time]")) {
    el.textContent = localTime(el.dateTime);
    el.title = el.dateTime;
  }
}
