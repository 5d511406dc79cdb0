/**
 * The priority classes a fleet decides with (contract/priority-classes.ts): the Worker pushes the whole
 * list whenever an admin changes it, and the fleet keeps it in meta; until then, the built-ins.
 */

import { ALLOCATED_STATES } from "../../../contract/job-states.js";
import {
  BUILTIN_PRIORITY_CLASSES,
  DEFAULT_PRIORITY_CLASS,
  type PriorityClass,
} from "../../../contract/priority-classes.js";
import { PRIORITY_CLASSES_KEY } from "../keys.js";
import type { FleetState } from "../state.js";
import type { Tx } from "../tx.js";

let parsedClasses: { raw: string | null; byName: Map<string, PriorityClass> } | null = null;

/** The priority classes this fleet decides with, by name (the built-ins until the Worker pushed a list). */
export function priorityClasses(s: FleetState): Map<string, PriorityClass> {
  const raw = s.meta(PRIORITY_CLASSES_KEY);
  if (parsedClasses?.raw !== raw) {
    const list = raw ? (JSON.parse(raw) as PriorityClass[]) : BUILTIN_PRIORITY_CLASSES;
    parsedClasses = { raw, byName: new Map(list.map((c) => [c.name, c])) };
  }
  return parsedClasses.byName;
}

/** The lowest value of a preemptible class (no class is: above every value). */
export function preemptionFloor(s: FleetState): number {
  let floor = Number.POSITIVE_INFINITY;
  for (const c of priorityClasses(s).values()) if (c.preemptible && c.value < floor) floor = c.value;
  return floor;
}

/** A job's class; one an admin since removed counts as the default class. */
export function classOf(s: FleetState, name: string): PriorityClass {
  const classes = priorityClasses(s);
  return classes.get(name) ?? classes.get(DEFAULT_PRIORITY_CLASS) ?? BUILTIN_PRIORITY_CLASSES[2]!;
}

/** Whether a class's jobs may run beyond their team's guarantee: a non-preemptible class never does. */
export function mayBorrow(c: PriorityClass): boolean {
  return c.may_borrow && c.preemptible;
}

/**
 * The Worker pushes the classes after an admin changed them: the next decision uses them. A scheduling
 * pass runs now only when a class a waiting or running job names changed (added, removed or different):
 * a class no job of this fleet uses changes none of its decisions, and every fleet gets every change.
 */
export function setPriorityClasses(t: Tx, classes: readonly PriorityClass[]): void {
  const raw = JSON.stringify(classes);
  if (t.s.meta(PRIORITY_CLASSES_KEY) === raw) return;
  const before = priorityClasses(t.s);
  t.setMeta(PRIORITY_CLASSES_KEY, raw);
  const after = priorityClasses(t.s);
  const changed = new Set(
    [...before.keys(), ...after.keys()].filter(
      (name) => JSON.stringify(before.get(name)) !== JSON.stringify(after.get(name)),
    ),
  );
  if (changed.has(DEFAULT_PRIORITY_CLASS)) {
    // A job whose class was removed counts as the default class.
    t.schedule();
    return;
  }
  const inUse = ["QUEUED", ...ALLOCATED_STATES].some((status) =>
    t.s.jobsByStatus(status).some((j) => changed.has(j.priority_class)),
  );
  if (inUse) t.schedule();
}
