/** The benchmark report's verdicts (scripts/bench/report.mjs): each target holds exactly at its threshold; a figure measured in rounds is its median round. */
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain ES module of the bench scripts, without types
import { medianPoint } from "../../scripts/bench/load.mjs";
// @ts-expect-error: a plain ES module of the bench scripts, without types
import { admissionTargets, markdown, pipelineTargets, placementTarget } from "../../scripts/bench/report.mjs";

const point = (rate: number) => ({ rate, p50_ms: 1, p99_ms: 2 });
const admissions = (at0: number, deep: number, slurm: number | null, noopDo: number) => ({
  tool: "t",
  warmup_requests: 1,
  requests_per_point: 1,
  baseline_requests_per_point: 1,
  concurrencies: [1],
  depths: [0, 10_000],
  admissions: { 0: { 1: point(at0) }, 10000: { 1: point(deep) } },
  baselines: {
    noop_route: { 1: point(10_000) },
    noop_do: { 1: point(noopDo) },
    noop_d1: { 1: point(700) },
    slurm: slurm === null ? {} : { 1: { rate: slurm, requests: 500 } },
  },
});

describe("benchmark verdicts", () => {
  it("holds a placed job's submit → RUNNING at exactly 2 s (p99 for the p95 target), and misses it above", () => {
    const running = (p99: number) => ({
      running: {
        tool: "t",
        samples: 3,
        p50_ms: 1,
        p90_ms: 1,
        p99_ms: 1,
        placed: { p50_ms: 1, p90_ms: 1, p99_ms: p99 },
      },
    });
    const placed = (p99: number) =>
      pipelineTargets(running(p99)).find((t: { target: string }) => t.target.startsWith("a job placed"));
    expect(placed(2000).holds).toBe(true);
    expect(placed(2001).holds).toBe(false);
  });

  it("holds placement over 3 candidate fleets at exactly 80 % of one fleet's admissions, and misses it below", () => {
    const pl = (three: number) => ({ points: { 1: point(1000), 3: point(three), 10: point(700) } });
    expect(placementTarget(pl(800)).holds).toBe(true);
    expect(placementTarget(pl(799)).holds).toBe(false);
  });

  it("holds each admission target exactly at its threshold and misses it just below", () => {
    const [held] = admissionTargets(admissions(500, 400, 250, 1000));
    expect(held.holds).toEqual({ slurm_2x: true, noop_do_half: true, depth_80: true });
    const [missed] = admissionTargets(admissions(499, 399, 250, 1000));
    expect(missed.holds).toEqual({ slurm_2x: false, noop_do_half: false, depth_80: false });
    const [noSlurm] = admissionTargets(admissions(500, 400, null, 1000));
    expect(noSlurm.holds.slurm_2x).toBeNull();
  });

  it("judges launch, fan-in, ingest, tail and RUNNING against their targets", () => {
    const pipeline = {
      launch: { samples: 100, p50_ms: 50, p90_ms: 60, p99_ms: 200 },
      fan_in: { agents: 1000, heartbeat_ms: 2000, p50_ms: 70, p90_ms: 80, p99_ms: 401 },
      ingest: {
        tool: "t",
        points: 10,
        lines: 10,
        points_per_s: 100_000,
        lines_per_s: 49_999,
        readback: { points_read: 10, points_equal: true, lines_read: 10, lines_equal: true },
        sqlite_baseline: { points_per_s: 200_000, lines_per_s: 90_000 },
      },
      log_tail: { tool: "t", samples: 10, p50_ms: 1, p90_ms: 2, p99_ms: 100 },
    };
    const running = {
      tool: "t",
      samples: 3,
      p50_ms: 100,
      p90_ms: 1,
      p99_ms: 1,
      slurm: { tool: "s", p50_ms: 1000, p99_ms: 1 },
    };
    const verdicts = pipelineTargets({ pipeline, running }).map((t: { holds: boolean | null }) => t.holds);
    // launch holds at 50/200; fan-in 401 > 2 × 200; lines below 50k; lines 55 % ≥ 50 % but points 50 %;
    // tail at 100 ms; RUNNING exactly 10× faster.
    expect(verdicts).toEqual([true, false, false, true, true, true]);
  });

  it("writes a missed target as missed in the report", () => {
    const md = markdown({
      quick: false,
      finished_at: "2026-12-01T00:00:00Z",
      environment: {
        commit: "abc",
        cpus: 2,
        cpu_model: "x",
        memory_gib: 24,
        os: "Linux",
        node: "v20",
        miniflare: "4",
        wrangler: "4",
        slurm: "slurm 22",
      },
      admissions: admissions(100, 100, 250, 1000),
    });
    expect(md).toContain("| admissions ≥ 2× Slurm, 1 client(s) | 100/s vs 250/s: 0.40× | **missed** |");
    expect(md).toContain("**Why the missed targets are missed, and what is next.**");
  });

  it("reports a figure measured in rounds as its median round, with every round's rate", () => {
    const rounds = [
      { rate: 900, p50_ms: 9 },
      { rate: 700, p50_ms: 7 },
      { rate: 800, p50_ms: 8 },
    ];
    expect(medianPoint(rounds)).toEqual({ rate: 800, p50_ms: 8, rounds: [900, 700, 800] });
    expect(medianPoint([{ rate: 5 }])).toEqual({ rate: 5, rounds: [5] });
  });
});
