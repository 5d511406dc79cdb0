/**
 * `sf job samples ID [--step N]`: the validation samples a run reported (prompt, answer, reward) —
 * without --step, each step's summary; with it, that step's samples, pages followed up to --limit.
 */
import type { Command } from "commander";
import {
  ValidationSamplesView,
  type ValidationSampleView,
  ValidationStepsView,
  type ValidationStepView,
} from "../../../contract/readback.schema.js";
import { route } from "../../api.js";
import { authedApi } from "../../context.js";
import { CliError, EXIT } from "../../errors.js";
import { c, emit, info, print } from "../../output.js";
import { colorTable, formatNumber } from "./format.js";

function count(name: string, raw: string | undefined, fallback: number, min: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min)
    throw new CliError(`--${name} must be an integer ≥ ${min}, got "${raw}"`, { exit: EXIT.USAGE });
  return n;
}

const reward = (r: number | null) => (r === null ? "-" : formatNumber(r));

function text(v: unknown): string {
  if (v === null || v === undefined) return "";
  return typeof v === "string" ? v : JSON.stringify(v, null, 2);
}

function indent(s: string): string {
  return s
    .split("\n")
    .map((l) => `    ${l}`)
    .join("\n");
}

function printSample(s: ValidationSampleView): void {
  print(`${c.bold(`#${s.idx}`)}  reward ${c.cyan(reward(s.reward))}`);
  for (const [label, value] of [
    ["user", s.user],
    ["assistant", s.assistant],
  ] as const) {
    print(c.dim(`  ${label}:`));
    print(indent(text(value)));
  }
  if (s.env !== null && s.env !== undefined) print(c.dim(`  env: ${JSON.stringify(s.env)}`));
  print();
}

function stepLine(s: ValidationStepView): string {
  const state = s.complete ? c.green("complete") : c.yellow(`${s.chunks_received}/${s.total_chunks} chunks`);
  return `step ${s.step}: ${s.samples_received}/${s.total_samples} samples, avg reward ${s.avg_reward === null ? "-" : formatNumber(s.avg_reward)} (${state})`;
}

export async function samples(
  cmd: Command,
  id: string,
  o: { step?: string; run?: string; limit?: string },
): Promise<void> {
  const api = authedApi(cmd);
  const limit = count("limit", o.limit, 20, 1);
  if (o.step === undefined) {
    const q = new URLSearchParams(o.run ? { run: o.run } : {});
    const r = await api.get(route("/v1/jobs/{id}/validation", { id }, q), ValidationStepsView);
    emit({ job_id: id, ...r }, () => {
      if (r.steps.length === 0) {
        info(`run ${r.run_id} has reported no validation samples`);
        return;
      }
      colorTable(
        r.steps.map((s) => ({
          step: s.step,
          samples: `${s.samples_received}/${s.total_samples}`,
          chunks: `${s.chunks_received}/${s.total_chunks}`,
          complete: s.complete ? "yes" : "no",
          "avg reward": s.avg_reward === null ? null : formatNumber(s.avg_reward),
        })),
        ["step", "samples", "chunks", "complete", "avg reward"],
      );
      info(c.dim(`(sf job samples ${id} --step STEP for the samples)`));
    });
    return;
  }
  const step = count("step", o.step, 0, 0);
  const got: ValidationSampleView[] = [];
  let after = -1;
  let page: ValidationSamplesView;
  for (;;) {
    const q = new URLSearchParams({
      step: String(step),
      after: String(after),
      limit: String(Math.min(1000, limit - got.length)),
    });
    if (o.run) q.set("run", o.run);
    page = await api.get(route("/v1/jobs/{id}/validation", { id }, q), ValidationSamplesView);
    got.push(...page.samples);
    if (page.next_after === null || got.length >= limit) break;
    after = page.next_after;
  }
  emit({ job_id: id, run_id: page.run_id, step: page.step, samples: got }, () => {
    print(c.bold(stepLine(page.step)));
    print();
    for (const s of got) printSample(s);
    if (got.length < page.step.samples_received)
      info(c.dim(`(${got.length} of ${page.step.samples_received} samples; --limit N for more)`));
  });
}
