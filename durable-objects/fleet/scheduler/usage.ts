/** GPU-time accounting helpers, pure. */
import { utcDay } from "../../../contract/time.js";

const DAY_MS = 86_400_000;

/** Splits an allocation interval into GPU-seconds per UTC day, so daily quotas and reports agree. */
export function splitByUtcDay(
  startMs: number,
  endMs: number,
  gpus: number,
): Array<{ day: string; gpuSeconds: number }> {
  const out: Array<{ day: string; gpuSeconds: number }> = [];
  let t = startMs;
  while (t < endMs) {
    const dayEnd = (Math.floor(t / DAY_MS) + 1) * DAY_MS;
    const upTo = Math.min(dayEnd, endMs);
    out.push({ day: utcDay(t), gpuSeconds: ((upTo - t) / 1000) * gpus });
    t = upTo;
  }
  return out;
}

/** GPU-seconds an interval contributes to the window [fromMs, toMs). */
export function overlapGpuSeconds(
  startMs: number,
  endMs: number,
  gpus: number,
  fromMs: number,
  toMs: number,
): number {
  const s = Math.max(startMs, fromMs);
  const e = Math.min(endMs, toMs);
  return e > s ? ((e - s) / 1000) * gpus : 0;
}
