/** GPU-time accounting helpers, pure. */
import { splitByUtcDay } from "../../../contract/time.js";

/** Shared with the Worker's usage report (contract/time.ts). */
export { splitByUtcDay };

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
