/** `sf admin priority-class ls|set|rm` (docs/scheduling.md "Priority classes and preemption"). */
import type { Command } from "commander";
import type { SetPriorityClassBody } from "../../../contract/priority-classes.js";
import { DeletedProfile, OnePriorityClass, PriorityClassList } from "../../../contract/responses.schema.js";
import { route } from "../../api.js";
import { authedApi } from "../../context.js";
import { c, emit, info, table } from "../../output.js";

export async function listClasses(cmd: Command): Promise<void> {
  const { priority_classes } = await authedApi(cmd).get(route("/v1/priority-classes"), PriorityClassList);
  emit({ priority_classes }, () =>
    table(
      priority_classes.map((p) => ({
        name: p.name,
        value: p.value,
        preemptible: p.preemptible ? "yes" : "no",
        grace: `${p.grace_seconds}s`,
        "min runtime": `${p.min_runtime_seconds}s`,
        borrows: p.may_borrow ? "yes" : "no",
        description: p.description || null,
      })),
      ["name", "value", "preemptible", "grace", "min runtime", "borrows", "description"],
    ),
  );
}

export interface ClassFlags {
  value?: number;
  preemptible?: boolean;
  graceSeconds?: number;
  minRuntimeSeconds?: number;
  borrow?: boolean;
  description?: string;
}

/** The body of a PUT: only what was given changes. */
export function classBody(o: ClassFlags): SetPriorityClassBody {
  return {
    ...(o.value !== undefined ? { value: o.value } : {}),
    ...(o.preemptible !== undefined ? { preemptible: o.preemptible } : {}),
    ...(o.graceSeconds !== undefined ? { grace_seconds: o.graceSeconds } : {}),
    ...(o.minRuntimeSeconds !== undefined ? { min_runtime_seconds: o.minRuntimeSeconds } : {}),
    ...(o.borrow !== undefined ? { may_borrow: o.borrow } : {}),
    ...(o.description !== undefined ? { description: o.description } : {}),
  };
}

export async function setClass(cmd: Command, name: string, o: ClassFlags): Promise<void> {
  const { priority_class: p } = await authedApi(cmd).put(
    route("/v1/priority-classes/{name}", { name }),
    OnePriorityClass,
    classBody(o),
  );
  emit({ priority_class: p }, () =>
    info(
      `${c.green("✓")} priority class ${c.bold(p.name)}: value ${p.value}, ` +
        `${p.preemptible ? `preemptible after ${p.min_runtime_seconds}s with ${p.grace_seconds}s to checkpoint` : "never preempted"}, ` +
        `${p.may_borrow ? "may borrow" : "runs only inside guaranteed quota"}`,
    ),
  );
}

export async function removeClass(cmd: Command, name: string): Promise<void> {
  const r = await authedApi(cmd).delete(route("/v1/priority-classes/{name}", { name }), DeletedProfile);
  emit(r, () => info(`${c.green("✓")} removed priority class ${name}; its jobs count as normal`));
}
