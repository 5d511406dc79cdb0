/**
 * The order `npm test` starts its files in: longest first, across every project at once, so the files that
 * mostly wait (a real control plane, a training run, a time window) start at once and overlap the files
 * that keep the CPU busy, and no long file starts last. Vitest's own order runs the projects one after
 * another and, on a clean clone without its cache, its files by size.
 *
 * The times come from test/file-times.json (seconds per file, written by `node scripts/file-times.mjs
 * <vitest JSON report>...`). A file it does not list is estimated at its project's median, so a new file
 * needs no entry to run; a stale table only changes the order, never what runs.
 */
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

type Times = Record<string, number>;

function loadTimes(root: string): Times {
  try {
    return JSON.parse(readFileSync(join(root, "test", "file-times.json"), "utf8")) as Times;
  } catch {
    return {};
  }
}

/** The median of the known times of each project's files (test/<project>/…). */
function projectMedians(times: Times): Map<string, number> {
  const by = new Map<string, number[]>();
  for (const [file, s] of Object.entries(times)) {
    const project = /^test\/([^/]+)\//.exec(file)?.[1];
    if (project) by.set(project, [...(by.get(project) ?? []), s]);
  }
  const out = new Map<string, number>();
  for (const [p, xs] of by) out.set(p, xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!);
  return out;
}

export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const times = loadTimes(root);
    const medians = projectMedians(times);
    const estimate = (spec: TestSpecification): number => {
      const file = relative(root, spec.moduleId).split("\\").join("/");
      return times[file] ?? medians.get(spec.project.name) ?? 1;
    };
    return [...files].sort(
      (a, b) =>
        a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder ||
        estimate(b) - estimate(a) ||
        a.moduleId.localeCompare(b.moduleId),
    );
  }
}
