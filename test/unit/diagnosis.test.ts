/**
 * The failure classifier (contract/diagnosis.ts) against a corpus of realistic failure logs
 * (test/fixtures/failures/, written from the real formats of PyTorch, NCCL, CUDA, the NVIDIA driver, the
 * Linux OOM killer, Python, the HuggingFace Hub client and the DataLoader): at least 95 % of the classes
 * right, every multi-rank case's root-cause rank right (the first failure in time, never an echo), and the
 * confusion table printed.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import {
  type DiagnosisInput,
  diagnose,
  FAILURE_CLASSES,
  type FailureClass,
} from "../../contract/diagnosis.js";

const DIR = resolve(import.meta.dirname, "../fixtures/failures");

interface Case {
  file: string;
  description: string;
  expected: { class: FailureClass; rank: number | null; line: { rank: number; seq: number } | null };
  input: DiagnosisInput;
}

function load(): Case[] {
  return readdirSync(DIR)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((file) => {
      const raw = JSON.parse(readFileSync(join(DIR, file), "utf8")) as {
        description: string;
        expected: Case["expected"];
        ranks: Record<
          string,
          {
            node?: string;
            exit_code: number | null;
            signal?: string | null;
            lines: Array<{ t?: number; stream?: string; text: string }>;
          }
        >;
        events?: DiagnosisInput["events"];
        metrics?: DiagnosisInput["metrics"];
      };
      const ranks = Object.entries(raw.ranks).map(([rank, r]) => ({
        rank: Number(rank),
        node: r.node ?? null,
        exit_code: r.exit_code,
        signal: r.signal ?? null,
        lines: r.lines.map((l, seq) => ({ seq, ...l })),
      }));
      return {
        file,
        description: raw.description,
        expected: raw.expected,
        input: { ranks, events: raw.events ?? [], metrics: raw.metrics ?? [] },
      };
    });
}

describe("the failure classifier on the corpus", () => {
  const cases = load();

  it("has a corpus of at least 60 cases, multi-rank ones among them", () => {
    expect(cases.length).toBeGreaterThanOrEqual(60);
    expect(cases.filter((c) => c.input.ranks.length > 1).length).toBeGreaterThanOrEqual(10);
  });

  it("classifies at least 95 % right, and names the root-cause rank of every multi-rank case", () => {
    const confusion = new Map<string, number>();
    const wrong: string[] = [];
    let right = 0;
    for (const c of cases) {
      const d = diagnose(c.input);
      const key = `${c.expected.class} → ${d.class}`;
      confusion.set(key, (confusion.get(key) ?? 0) + 1);
      if (d.class === c.expected.class) right += 1;
      else
        wrong.push(`${c.file}: expected ${c.expected.class}, got ${d.class} (${d.line?.text ?? d.summary})`);
    }
    const rows = FAILURE_CLASSES.flatMap((expected) =>
      [...confusion].filter(([k]) => k.startsWith(`${expected} →`)).map(([k, n]) => `${k.padEnd(34)} ${n}`),
    );
    console.log(`confusion (expected → got):\n${rows.join("\n")}\n${wrong.join("\n")}`);
    expect(right / cases.length, wrong.join("\n")).toBeGreaterThanOrEqual(0.95);

    const multi = cases.filter((c) => c.input.ranks.length > 1 && c.expected.rank !== null);
    const misplaced = multi.flatMap((c) => {
      const d = diagnose(c.input);
      return d.rank === c.expected.rank
        ? []
        : [`${c.file}: root cause rank ${c.expected.rank}, got ${d.rank}`];
    });
    expect(misplaced).toEqual([]);
  });

  it("points at the line the diagnosis rests on", () => {
    const withLine = cases.filter((c) => c.expected.line !== null);
    const off = withLine.flatMap((c) => {
      const d = diagnose(c.input);
      const e = c.expected.line!;
      return d.line?.rank === e.rank && d.line.seq === e.seq
        ? []
        : [`${c.file}: line ${JSON.stringify(e)}, got ${JSON.stringify(d.line)}`];
    });
    expect(off.length / withLine.length, off.join("\n")).toBeLessThanOrEqual(0.1);
  });
});
