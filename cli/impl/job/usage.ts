/** `sf status`: my usage against my quota, and how busy each fleet is. */
import type { Command } from "commander";
import { FleetInspect, FleetList, Usage } from "../../../contract/responses.schema.js";
import { authedApi } from "../../context.js";
import { c, emit, print } from "../../output.js";
import { colorTable, formatNumber } from "./format.js";

export interface FleetTotals {
  name: string;
  id: string;
  kind: string;
  draining: boolean;
  gpus: number;
  allocated: number;
  free: number;
  queued: number;
  running: number | null;
}

/** Two decimals, but a small non-zero figure keeps three significant digits instead of showing 0. */
const hours = (h: number) => (h > 0 && h < 0.01 ? h.toPrecision(3) : formatNumber(Math.round(h * 100) / 100));

export async function statusCmd(cmd: Command): Promise<void> {
  const api = authedApi(cmd);
  const [usage, fleetList] = await Promise.all([
    api.get("/v1/usage", Usage),
    api.get("/v1/fleets", FleetList),
  ]);
  const fleets: FleetTotals[] = await Promise.all(
    fleetList.fleets.map(async (f) => {
      const t = (await api.get(`/v1/fleets/${encodeURIComponent(f.name)}`, FleetInspect)).totals;
      return {
        name: f.name,
        id: f.id,
        kind: f.kind,
        draining: f.draining,
        gpus: t.gpus,
        allocated: t.allocated,
        free: t.free,
        queued: t.queued,
        running: t.running ?? null,
      };
    }),
  );
  emit({ server: api.server, usage, fleets }, () => {
    const q = usage.quota;
    print(`${c.bold(usage.user)} on ${api.server}`);
    colorTable(
      [
        { what: "active jobs", used: usage.active_jobs, limit: q.max_jobs },
        { what: "GPUs in use", used: usage.active_gpus, limit: q.max_gpus },
        {
          what: "GPU-hours today (UTC)",
          used: hours(usage.gpu_hours_today),
          limit: hours(q.daily_gpu_hours),
        },
        { what: "GPU-hours total", used: hours(usage.gpu_hours_total), limit: null },
      ],
      ["what", "used", "limit"],
    );
    print();
    if (fleets.length === 0) {
      print(c.dim("no fleets yet"));
      return;
    }
    print(c.bold("Fleets"));
    colorTable(
      fleets.map((f) => ({
        fleet: f.name,
        kind: f.kind,
        gpus: f.gpus,
        allocated: f.allocated,
        free: f.free,
        queued: f.queued,
        running: f.running,
        state: f.draining ? "draining" : "open",
      })),
      ["fleet", "kind", "gpus", "allocated", "free", "queued", "running", "state"],
      { state: (s) => (s === "draining" ? c.yellow(s) : s) },
    );
  });
}
