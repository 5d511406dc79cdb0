/**
 * The shape of `forgelet doctor`'s report, and how it is printed. Check ids are stable (scripts switch on
 * them); their order is the order a host is set up in: enrolled, reaching the control plane, on time,
 * then the runtime it runs jobs with.
 */
import { z } from "zod";

export const CHECK_IDS = [
  "credential",
  "dns",
  "https",
  "websocket",
  "clock",
  "docker",
  "nvidia-runtime",
  "gpus",
  "slurm",
  "kube",
] as const;

export const CheckStatus = z.enum(["ok", "warn", "fail", "skip"]);
export type CheckStatus = z.infer<typeof CheckStatus>;

export const Check = z.object({
  id: z.enum(CHECK_IDS),
  status: CheckStatus,
  /** One line: what was found. */
  detail: z.string(),
  /** One line: what to do about it (null when there is nothing to do). */
  fix: z.string().nullable(),
});
export type Check = z.infer<typeof Check>;

export const DoctorReport = z.object({
  /** The control plane checked (null: none given and no credential names one). */
  server: z.string().nullable(),
  /** The proxy its traffic goes through (password masked), or null for a direct connection. */
  proxy: z.string().nullable(),
  /** True when no check failed (the exit status is 0 exactly then). */
  ok: z.boolean(),
  checks: z.array(Check),
});
export type DoctorReport = z.infer<typeof DoctorReport>;

export const check = (
  id: Check["id"],
  status: CheckStatus,
  detail: string,
  fix: string | null = null,
): Check => ({ id, status, detail, fix });

/** The report for a terminal: one line per check, its fix indented under it. */
export function renderReport(r: DoctorReport): string {
  const lines = [
    `forgelet doctor: ${r.server ? `server ${r.server}` : "no server"}${r.proxy ? ` through the proxy ${r.proxy}` : r.server ? " (direct)" : ""}`,
  ];
  const width = Math.max(...r.checks.map((c) => c.id.length));
  for (const c of r.checks) {
    lines.push(`  ${c.status.padEnd(5)} ${c.id.padEnd(width)}  ${c.detail}`);
    if (c.fix) lines.push(`  ${" ".repeat(5)} ${" ".repeat(width)}  fix: ${c.fix}`);
  }
  const fails = r.checks.filter((c) => c.status === "fail").length;
  const warns = r.checks.filter((c) => c.status === "warn").length;
  lines.push(
    fails + warns === 0
      ? "all checks passed"
      : `${fails} failing, ${warns} warning${warns === 1 ? "" : "s"}${fails ? "" : ": forgelet can run"}`,
  );
  return `${lines.join("\n")}\n`;
}

/** A duration for people: "45 s", "12 min", "23 h 5 min", "3 d". */
export function humanDuration(ms: number): string {
  const s = Math.round(Math.abs(ms) / 1000);
  if (s < 120) return `${s} s`;
  const m = Math.round(s / 60);
  if (m < 120) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 72) return `${h} h${m % 60 ? ` ${m % 60} min` : ""}`;
  return `${Math.round(h / 24)} d`;
}
