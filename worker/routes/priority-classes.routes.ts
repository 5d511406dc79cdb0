import { eq } from "drizzle-orm";
import { Hono } from "hono";
import { nowIso } from "../../contract/ids.js";
import {
  applyPriorityClass,
  PriorityClassName,
  SetPriorityClassBody,
} from "../../contract/priority-classes.js";
import { DeletedProfile, OnePriorityClass, PriorityClassList } from "../../contract/responses.schema.js";
import { db, schema } from "../../d1/client.js";
import { type Env, requireRole } from "../auth/middleware.js";
import { AppError } from "../errors.js";
import { parseJson } from "../http.js";
import { describe } from "../openapi/describe.js";
import { recordAudit } from "../services/audit.service.js";
import { pushPriorityClasses, readPriorityClasses } from "../services/priority-classes.service.js";

function className(raw: string): string {
  const name = PriorityClassName.safeParse(raw);
  if (!name.success)
    throw new AppError(
      "BAD_REQUEST",
      `priority class names are lowercase [a-z0-9-], starting with a letter: ${raw}`,
    );
  return name.data;
}

/** Priority classes (docs/scheduling.md): everyone may read them, admins change them. */
export const priorityClassesRoutes = new Hono<Env>()
  .get(
    "/priority-classes",
    describe({
      id: "listPriorityClasses",
      tag: "Priority classes",
      summary: "List priority classes, highest value first",
      description: "The five built-in classes (as an admin changed them) and the ones admins added.",
      role: "viewer",
      ok: { 200: PriorityClassList },
    }),
    requireRole("viewer"),
    async (c) => c.json({ priority_classes: await readPriorityClasses(db(c.env.DB)) }),
  )
  .put(
    "/priority-classes/:name",
    describe({
      id: "setPriorityClass",
      tag: "Priority classes",
      summary: "Change a priority class, or add one",
      description:
        "Changes the attributes given (the others keep their value), or adds the class: then `value` is " +
        "required and the rest default to `preemptible: true`, `grace_seconds: 120`, " +
        "`min_runtime_seconds: 600`, `may_borrow: true`. Every fleet has the new list before the answer. " +
        "An invalid `:name`, or a new class without `value`, is a 400 `BAD_REQUEST`.",
      role: "admin",
      body: SetPriorityClassBody,
      ok: {
        200: { description: "The class was changed", json: OnePriorityClass },
        201: { description: "The class was added", json: OnePriorityClass },
      },
      errors: ["UNAVAILABLE"],
    }),
    requireRole("admin"),
    async (c) => {
      const name = className(c.req.param("name"));
      const body = await parseJson(c, SetPriorityClassBody);
      const d = db(c.env.DB);
      const current = (await readPriorityClasses(d)).find((p) => p.name === name) ?? null;
      const next = applyPriorityClass(name, current, body);
      if (!next.ok) throw new AppError("BAD_REQUEST", next.message);
      const row = { name, body: JSON.stringify(next.value), updatedAt: nowIso() };
      await d
        .insert(schema.priorityClasses)
        .values(row)
        .onConflictDoUpdate({ target: schema.priorityClasses.name, set: row })
        .run();
      await recordAudit(c, {
        action: "priority_class.set",
        target: `priority_class:${name}`,
        details: { ...body, created: current === null },
      });
      // Pushed even when nothing changed: repeating a PUT that answered 503 (a fleet did not take it) is
      // how an admin brings every fleet up to date, and a fleet that has the list already does nothing.
      await pushPriorityClasses(c.env, await readPriorityClasses(d));
      return c.json({ priority_class: next.value }, current ? 200 : 201);
    },
  )
  .delete(
    "/priority-classes/:name",
    describe({
      id: "deletePriorityClass",
      tag: "Priority classes",
      summary: "Remove a priority class an admin added",
      description:
        "Jobs of that class are scheduled as `normal` from then on. A built-in class cannot be removed " +
        "(409 `CONFLICT`: change it with PUT); an invalid `:name` is a 400 `BAD_REQUEST`.",
      role: "admin",
      ok: { 200: DeletedProfile },
      errors: ["BAD_REQUEST", "NOT_FOUND", "CONFLICT", "UNAVAILABLE"],
    }),
    requireRole("admin"),
    async (c) => {
      const name = className(c.req.param("name"));
      const d = db(c.env.DB);
      const classes = await readPriorityClasses(d);
      const current = classes.find((p) => p.name === name);
      if (!current) {
        // Gone already: the list still goes to every fleet, so repeating a removal that answered 503 (a
        // fleet did not take it) brings them up to date.
        await pushPriorityClasses(c.env, classes);
        throw new AppError("NOT_FOUND", `no priority class ${name}`);
      }
      if (current.builtin)
        throw new AppError(
          "CONFLICT",
          `${name} is a built-in class: change it with PUT, it cannot be removed`,
        );
      await d.delete(schema.priorityClasses).where(eq(schema.priorityClasses.name, name)).run();
      await recordAudit(c, { action: "priority_class.delete", target: `priority_class:${name}` });
      await pushPriorityClasses(c.env, await readPriorityClasses(d));
      return c.json({ deleted: name });
    },
  );
