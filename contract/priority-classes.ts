/**
 * Priority classes (docs/scheduling.md "Priority classes and preemption"): named levels a job asks for
 * with `lifecycle.priority_class`. The class's value orders the queue before anything else, and decides
 * who may displace whom: a queued job may preempt running jobs of a lower value whose class is
 * preemptible, once they ran their class's minimum runtime; a victim gets its class's grace to checkpoint.
 *
 * Five classes are built in; an admin may change any of their attributes and add classes of their own
 * (`PUT /v1/priority-classes/:name`). Every fleet holds the whole list (pushed when it changes), so the
 * Fleet DO decides with it without asking anyone.
 */
import { z } from "zod";

export const PriorityClassName = z
  .string()
  .regex(
    /^[a-z][a-z0-9-]{0,31}$/,
    "lowercase letters, digits and -, starting with a letter, at most 32 chars",
  );

export const PriorityClass = z.object({
  name: PriorityClassName.describe(
    "The class's name, what a job's `lifecycle.priority_class` says: lowercase letters, digits and `-`",
  ),
  /** Higher runs first and may preempt lower. */
  value: z
    .number()
    .int()
    .min(-1_000_000)
    .max(1_000_000)
    .describe("Its rank: higher classes are scheduled first and may preempt jobs of lower, preemptible ones"),
  /** Whether jobs of this class may be preempted by jobs of a higher value. */
  preemptible: z.boolean().describe("Whether its jobs may be preempted by jobs of a class of higher value"),
  /** Seconds a preempted job gets between the notice (SIGTERM) and SIGKILL to write its checkpoint. */
  grace_seconds: z
    .number()
    .int()
    .min(0)
    .max(3600)
    .describe("Seconds a preempted job of the class gets from SIGTERM to SIGKILL to write its checkpoint"),
  /** Seconds a job of this class runs before it may be preempted (anti-thrash). */
  min_runtime_seconds: z
    .number()
    .int()
    .min(0)
    .max(7 * 86_400)
    .describe("Seconds its jobs run before they may be preempted"),
  /** Whether jobs of this class may use GPUs beyond their team's guarantee (borrowed from idle teams). */
  may_borrow: z
    .boolean()
    .describe("Whether its jobs may use GPUs beyond their team's guarantee, borrowed from idle teams"),
  description: z.string().max(200).default("").describe("What the class is for, free text; may be empty"),
  /** One of the five classes every installation has (it cannot be deleted). */
  builtin: z
    .boolean()
    .default(false)
    .describe(
      "True for the five classes every installation has (`critical`, `high`, `normal`, `low`, `scavenger`): they cannot be deleted",
    ),
});
export type PriorityClass = z.infer<typeof PriorityClass>;

/** The class of a job that names none. */
export const DEFAULT_PRIORITY_CLASS = "normal";

const builtin = (c: Omit<PriorityClass, "builtin">): PriorityClass => ({ ...c, builtin: true });

export const BUILTIN_PRIORITY_CLASSES: readonly PriorityClass[] = [
  builtin({
    name: "critical",
    value: 1000,
    preemptible: false,
    grace_seconds: 300,
    min_runtime_seconds: 0,
    may_borrow: false,
    description: "production-critical work: never preempted, runs only inside guaranteed quota",
  }),
  builtin({
    name: "high",
    value: 500,
    preemptible: true,
    grace_seconds: 120,
    min_runtime_seconds: 600,
    may_borrow: true,
    description: "urgent work: starts ahead of normal jobs and may preempt lower classes",
  }),
  builtin({
    name: "normal",
    value: 0,
    preemptible: true,
    grace_seconds: 120,
    min_runtime_seconds: 600,
    may_borrow: true,
    description: "the default class",
  }),
  builtin({
    name: "low",
    value: -500,
    preemptible: true,
    grace_seconds: 60,
    min_runtime_seconds: 300,
    may_borrow: true,
    description: "background work that yields to normal and higher",
  }),
  builtin({
    name: "scavenger",
    value: -1000,
    preemptible: true,
    grace_seconds: 30,
    min_runtime_seconds: 0,
    may_borrow: true,
    description: "idle-time work: runs on whatever is free and yields to anything",
  }),
];

/** PUT /v1/priority-classes/:name: what changes (a new class needs its value; the rest default). */
export const SetPriorityClassBody = z.object({
  value: PriorityClass.shape.value
    .optional()
    .describe(
      "Higher runs first and may preempt jobs of lower, preemptible classes; required for a new class",
    ),
  preemptible: z
    .boolean()
    .optional()
    .describe("Whether its jobs may be preempted; omitted: unchanged (a new class: `true`)"),
  grace_seconds: PriorityClass.shape.grace_seconds
    .optional()
    .describe(
      "Seconds a preempted job gets from SIGTERM to SIGKILL to checkpoint; omitted: unchanged (a new class: 120)",
    ),
  min_runtime_seconds: PriorityClass.shape.min_runtime_seconds
    .optional()
    .describe("Seconds its jobs run before they may be preempted; omitted: unchanged (a new class: 600)"),
  may_borrow: z
    .boolean()
    .optional()
    .describe(
      "Whether its jobs may use GPUs beyond their team's guarantee; omitted: unchanged (a new class: `true`)",
    ),
  // Its default ("") unwrapped: a description left out must stay unchanged, not be blanked.
  description: PriorityClass.shape.description
    .unwrap()
    .optional()
    .describe("What the class is for, free text; omitted: unchanged (a new class: empty)"),
});
export type SetPriorityClassBody = z.infer<typeof SetPriorityClassBody>;

/** Defaults of what a new class's body leaves out: a preemptible class that may borrow, as `normal`. */
const NEW_CLASS_DEFAULTS = {
  preemptible: true,
  grace_seconds: 120,
  min_runtime_seconds: 600,
  may_borrow: true,
};

/**
 * The class `name` after `body` is applied to what it was (`current`, null for a new class), or why it
 * cannot be: a new class must say its value.
 */
export function applyPriorityClass(
  name: string,
  current: PriorityClass | null,
  body: SetPriorityClassBody,
): { ok: true; value: PriorityClass } | { ok: false; message: string } {
  if (!current && body.value === undefined)
    return { ok: false, message: `priority class ${name} is new: give it a value (--value N)` };
  const base = current ?? { name, builtin: false, description: "", value: 0, ...NEW_CLASS_DEFAULTS };
  const defined = Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));
  return { ok: true, value: PriorityClass.parse({ ...base, ...defined, name }) };
}

/**
 * The full list: the built-ins as an admin changed them, then custom classes; highest value first (the
 * order `sf admin priority-class ls` shows). `stored` are the classes an admin set.
 */
export function effectiveClasses(stored: readonly PriorityClass[]): PriorityClass[] {
  const byName = new Map<string, PriorityClass>(BUILTIN_PRIORITY_CLASSES.map((c) => [c.name, c]));
  for (const c of stored) byName.set(c.name, { ...c, builtin: byName.get(c.name)?.builtin ?? false });
  return [...byName.values()].sort((a, b) => b.value - a.value || (a.name < b.name ? -1 : 1));
}

export type ClassRefusal = { code: "PRIORITY_CLASS_UNKNOWN" | "PRIORITY_CLASS_NOT_ALLOWED"; message: string };

/**
 * Why a job may not run in class `requested` (default `normal`) when its submitter may use classes up to
 * `cap` (a class name); null: it may. `classes` by name (the fleet's, rules/classes.ts). A class is allowed when its value is at most the cap's.
 */
export function classRefusal(
  classes: ReadonlyMap<string, PriorityClass>,
  requested: string | undefined,
  cap: string,
): ClassRefusal | null {
  const name = requested ?? DEFAULT_PRIORITY_CLASS;
  const cls = classes.get(name);
  if (!cls) {
    return {
      code: "PRIORITY_CLASS_UNKNOWN",
      message: `no priority class ${name}; the classes are ${[...classes.keys()].join(", ")}`,
    };
  }
  const capClass = classes.get(cap);
  const limit = capClass?.value ?? classes.get(DEFAULT_PRIORITY_CLASS)?.value ?? 0;
  if (cls.value > limit) {
    return {
      code: "PRIORITY_CLASS_NOT_ALLOWED",
      message: `your quota allows priority classes up to ${capClass?.name ?? DEFAULT_PRIORITY_CLASS} (value ${limit}); ${name} is ${cls.value}. Ask an admin, or submit with a lower class`,
    };
  }
  return null;
}
