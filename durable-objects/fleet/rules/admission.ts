/**
 * What a fleet checks of its own state before it queues a job (a submit's, or one another fleet hands
 * over: rules/reroute.ts): drain, abandoned or moved ids, the HuggingFace verdict, the priority class, the
 * team and its budget, the image allowlist as it is now.
 */
import { fail, type Result } from "../../../contract/errors.js";
import type { FleetConfig, SubmitInput } from "../../../contract/fleet.schema.js";
import { imageAllowed } from "../../../contract/image-allowlist.js";
import { classRefusal, DEFAULT_PRIORITY_CLASS } from "../../../contract/priority-classes.js";
import { resolveTeam } from "../../../contract/teams.js";
import { ANY_ABANDONED, ANY_MOVED, abandonedKey, movedToKey } from "../keys.js";
import type { Tx } from "../tx.js";
import { budgetOf, budgetReason } from "./budgets.js";
import { priorityClasses } from "./classes.js";
import { teamsOf } from "./teams.js";

/** Job `id` was queued here and moved to another fleet (a retry of its admission must not queue it again). */
export function leftFleet(t: Tx, id: string): boolean {
  return t.s.meta(ANY_MOVED) !== null && t.s.meta(movedToKey(id)) !== null;
}

/** Job id `id` is never queued here from now on (queueRefusal), and the fleet says it abandoned some. */
export function abandon(t: Tx, id: string): void {
  if (t.s.meta(abandonedKey(id)) === null) t.setMeta(abandonedKey(id), String(t.now));
  if (t.s.meta(ANY_ABANDONED) === null) t.setMeta(ANY_ABANDONED, "1");
}

/** What queueRefusal reads of a job to be queued (a submit's, or one another fleet hands over). */
export type QueueCheck = Pick<
  SubmitInput,
  "jobId" | "userId" | "spec" | "quota" | "hfUnchecked" | "imageFromCatalog"
> & { launch: { image: string | null } };

/** Why this fleet's own state refuses to queue `input` now; null: it may. */
export function queueRefusal(t: Tx, cfg: FleetConfig, input: QueueCheck): Result<never> | null {
  if (cfg.draining)
    return fail("FLEET_DRAINING", `fleet ${cfg.name} is draining: ${cfg.drainNote ?? "maintenance"}`);
  if (t.s.meta(ANY_ABANDONED) !== null && t.s.meta(abandonedKey(input.jobId)) !== null) {
    return fail(
      "CONFLICT",
      `job ${input.jobId}'s admission took too long and was abandoned; nothing was queued: submit again`,
    );
  }
  if (input.hfUnchecked && cfg.hfUnavailable === "refuse") {
    // The fleet stopped admitting jobs the hub could not check since the submitting isolate looked.
    return fail("HF_UNAVAILABLE", input.hfUnchecked);
  }
  const classRefused = classRefusal(
    priorityClasses(t.s),
    input.spec.lifecycle.priority_class,
    input.quota.max_priority_class,
  );
  if (classRefused) {
    return fail(classRefused.code, classRefused.message, {
      priority_class: input.spec.lifecycle.priority_class ?? DEFAULT_PRIORITY_CLASS,
      max_priority_class: input.quota.max_priority_class,
    });
  }
  const team = resolveTeam(teamsOf(t.s), input.userId, input.spec.resources.team);
  if ("code" in team) return fail(team.code, team.message, team.details);
  const spent = team.team ? budgetOf(t.s, { team: team.team }, t.now) : null;
  if (spent && spent.policy !== "borrow_free") {
    const r = budgetReason(team.team!, spent);
    return fail("BUDGET_EXHAUSTED", `${r.message}; no new jobs until then`, r.details);
  }
  const image = input.launch.image;
  // The allowlist as it is now, not as the submitting isolate cached it: a narrowed list binds every
  // submit queued after the change.
  if (image && !input.imageFromCatalog && cfg.imageAllowlist && !imageAllowed(image, cfg.imageAllowlist)) {
    return fail(
      "IMAGE_NOT_ALLOWED",
      `image ${image} is not on fleet ${cfg.name}'s allowlist${cfg.imageAllowlist.length ? ` (${cfg.imageAllowlist.join(", ")})` : " (empty)"}`,
      { image, allowlist: cfg.imageAllowlist },
    );
  }
  return null;
}

/** The team a job runs for (queueRefusal refused the jobs whose team could not be resolved). */
export function teamOfJob(t: Tx, input: Pick<SubmitInput, "userId" | "spec">): string | null {
  const team = resolveTeam(teamsOf(t.s), input.userId, input.spec.resources.team);
  return "team" in team ? team.team : null;
}
