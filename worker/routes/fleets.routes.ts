import { asc, eq } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import {
  CreateFleetBody,
  DrainBody,
  RegisterNodeBody,
  type TimeWindow,
  UpdateFleetBody,
} from "../../contract/api.schema.js";
import { type DrainReport, NodeView } from "../../contract/fleet.schema.js";
import { newId, nowIso } from "../../contract/ids.js";
import {
  DrainChange,
  EnrollmentTokenView,
  FleetList,
  FleetLive,
  Maintenance,
  OneFleet,
} from "../../contract/responses.schema.js";
import { isValidTimeZone } from "../../contract/time.js";
import { db, schema } from "../../d1/client.js";
import { currentUser, type Env, requireRole } from "../auth/middleware.js";
import { mintSecret } from "../auth/secrets.js";
import { AppError, unwrap } from "../errors.js";
import { parseJson } from "../http.js";
import { describe } from "../openapi/describe.js";
import { recordAudit } from "../services/audit.service.js";
import { fleetByRef, fleetConfig, fleetStub, fleetView } from "../services/fleets.service.js";
import { pushPriorityClasses, readPriorityClasses } from "../services/priority-classes.service.js";
import { pushTeams } from "../services/teams.service.js";

function checkWindows(windows: TimeWindow[] | undefined): void {
  for (const w of windows ?? []) {
    if (!isValidTimeZone(w.tz)) throw new AppError("BAD_REQUEST", `unknown time zone "${w.tz}" in a window`);
  }
}

const EnrollmentTokenBody = z.object({
  ttl_minutes: z
    .number()
    .int()
    .min(1)
    .max(7 * 24 * 60)
    .default(60)
    .describe("Minutes until the token expires if no agent has spent it, at most 7 days"),
});

/** POST /v1/fleets/:fleet/nodes: the node as registered (or updated). */
const RegisteredNode = z.looseObject({ node: NodeView });

const FLEET_REF = "`:fleet` is the fleet's name or id (`flt_…`).";

export const fleetsRoutes = new Hono<Env>()
  .get(
    "/fleets",
    describe({
      id: "listFleets",
      tag: "Fleets",
      summary: "List fleets, sorted by name",
      role: "viewer",
      ok: { 200: FleetList },
    }),
    requireRole("viewer"),
    async (c) => {
      const rows = await db(c.env.DB).select().from(schema.fleets).orderBy(asc(schema.fleets.name)).all();
      return c.json({ fleets: rows.map(fleetView) });
    },
  )
  .post(
    "/fleets",
    describe({
      id: "createFleet",
      tag: "Fleets",
      summary: "Create a fleet",
      description:
        "Its Durable Object is configured before the D1 row is written. A window with an unknown time zone " +
        "is a 400 `BAD_REQUEST`; a taken name a 409 `ALREADY_EXISTS` (`details.fleet`: the existing fleet, " +
        "when the pre-check finds it).",
      role: "admin",
      body: CreateFleetBody,
      ok: { 201: OneFleet },
      errors: ["ALREADY_EXISTS", "UNAVAILABLE"],
    }),
    requireRole("admin"),
    async (c) => {
      const body = await parseJson(c, CreateFleetBody);
      checkWindows(body.windows);
      const d = db(c.env.DB);
      const exists = await d.select().from(schema.fleets).where(eq(schema.fleets.name, body.name)).get();
      if (exists)
        throw new AppError("ALREADY_EXISTS", `fleet ${body.name} already exists`, {
          fleet: fleetView(exists),
        });
      const row = {
        id: newId("flt"),
        name: body.name,
        kind: body.kind,
        description: body.description,
        imageAllowlist: JSON.stringify(body.image_allowlist),
        windows: JSON.stringify(body.windows),
        network: JSON.stringify(body.network),
        hfUnavailable: body.hf_unavailable,
        preemptionsPerMinute: body.preemptions_per_minute,
        labels: JSON.stringify(body.labels),
        diagnosis: JSON.stringify(body.diagnosis),
      };
      // Configure the DO first: a fleet row in D1 must always have a configured DO behind it. A DO
      // configured for a row that then failed to insert is never addressed (its id is fresh).
      const stored = { ...row, draining: false, drainNote: null, createdAt: nowIso() };
      await fleetStub(c.env, row.id).configure(fleetConfig(stored));
      await pushPriorityClasses(c.env, await readPriorityClasses(d), row.id);
      await pushTeams(c.env, d, row.id);
      try {
        await d.insert(schema.fleets).values(row).run();
      } catch (err) {
        if (String(err).includes("UNIQUE"))
          throw new AppError("ALREADY_EXISTS", `fleet ${body.name} already exists`);
        throw err;
      }
      await recordAudit(c, {
        action: "fleet.create",
        target: `fleet:${row.name}`,
        details: { fleet_id: row.id, kind: row.kind },
      });
      return c.json({ fleet: fleetView(await fleetByRef(d, row.id)) }, 201);
    },
  )
  .get(
    "/fleets/:fleet",
    describe({
      id: "getFleet",
      tag: "Fleets",
      summary: "A fleet and what its Durable Object sees now",
      description:
        `${FLEET_REF} \`fleet\` is the D1 row; the rest (nodes, totals, queue, and the top-level ` +
        "`draining`, `drain_note` and `windows`) is the Fleet DO's live state.",
      role: "viewer",
      ok: { 200: FleetLive },
      errors: ["FLEET_NOT_FOUND"],
    }),
    requireRole("viewer"),
    async (c) => {
      const f = await fleetByRef(db(c.env.DB), c.req.param("fleet"));
      const live = await fleetStub(c.env, f.id).inspect();
      return c.json({ fleet: fleetView(f), ...live });
    },
  )
  .patch(
    "/fleets/:fleet",
    describe({
      id: "updateFleet",
      tag: "Fleets",
      summary: "Change a fleet's settings",
      description:
        `${FLEET_REF} Only the fields sent change (\`network\`, \`labels\` and \`diagnosis\` are replaced ` +
        "whole); a body with none of them changes nothing. The new configuration is pushed to the Fleet DO, " +
        "which runs a scheduling pass. `draining` is changed by the maintenance routes, not here. A window " +
        "with an unknown time zone is a 400 `BAD_REQUEST`.",
      role: "admin",
      body: UpdateFleetBody,
      ok: { 200: OneFleet },
      errors: ["FLEET_NOT_FOUND"],
    }),
    requireRole("admin"),
    async (c) => {
      const body = await parseJson(c, UpdateFleetBody);
      checkWindows(body.windows);
      const d = db(c.env.DB);
      const f = await fleetByRef(d, c.req.param("fleet"));
      const changes = {
        ...(body.description !== undefined ? { description: body.description } : {}),
        ...(body.image_allowlist ? { imageAllowlist: JSON.stringify(body.image_allowlist) } : {}),
        ...(body.windows ? { windows: JSON.stringify(body.windows) } : {}),
        ...(body.network ? { network: JSON.stringify(body.network) } : {}),
        ...(body.hf_unavailable ? { hfUnavailable: body.hf_unavailable } : {}),
        ...(body.preemptions_per_minute !== undefined
          ? { preemptionsPerMinute: body.preemptions_per_minute }
          : {}),
        ...(body.labels ? { labels: JSON.stringify(body.labels) } : {}),
        ...(body.diagnosis ? { diagnosis: JSON.stringify(body.diagnosis) } : {}),
      };
      if (Object.keys(changes).length === 0) return c.json({ fleet: fleetView(f) });
      await d.update(schema.fleets).set(changes).where(eq(schema.fleets.id, f.id)).run();
      const updated = await fleetByRef(d, f.id);
      await fleetStub(c.env, f.id).configure(fleetConfig(updated));
      await recordAudit(c, {
        action: "fleet.update",
        target: `fleet:${f.name}`,
        details: { fields: Object.keys(body).sort().join(",") },
      });
      return c.json({ fleet: fleetView(updated) });
    },
  )
  .post(
    "/fleets/:fleet/nodes",
    describe({
      id: "registerFleetNode",
      tag: "Fleets",
      summary: "Register a node in a fleet, or update it (an upsert by name)",
      description:
        `${FLEET_REF} The node becomes \`ready\` and the fleet runs a scheduling pass; 201 also when it ` +
        "updated an existing node. 409 `CONFLICT`: the name is an agent's node (it registers itself), or " +
        "the change would drop allocated GPU indices or change the series of a node that holds allocations.",
      role: "admin",
      body: RegisterNodeBody,
      ok: { 201: RegisteredNode },
      errors: ["FLEET_NOT_FOUND", "CONFLICT"],
    }),
    requireRole("admin"),
    async (c) => {
      const body = await parseJson(c, RegisterNodeBody);
      const f = await fleetByRef(db(c.env.DB), c.req.param("fleet"));
      const node = unwrap(await fleetStub(c.env, f.id).registerNode(body));
      await recordAudit(c, {
        action: "node.register",
        target: `node:${node.id}`,
        details: { fleet: f.name, name: node.name, series: body.series, gpus: body.gpus },
      });
      return c.json({ node }, 201);
    },
  )
  .post(
    "/fleets/:fleet/enrollment-tokens",
    describe({
      id: "createEnrollmentToken",
      tag: "Fleets",
      summary: "Mint a one-shot enrollment token for an agent joining the fleet",
      description:
        `${FLEET_REF} The token (\`sfe_…\`) is shown once; an agent trades it for its credential at ` +
        "POST /v1/agents/enroll.",
      role: "admin",
      body: {
        schema: EnrollmentTokenBody,
        optional: true,
        description: "Optional; read only when `Content-Type` contains `json`",
      },
      ok: { 201: EnrollmentTokenView },
      errors: ["FLEET_NOT_FOUND"],
    }),
    requireRole("admin"),
    async (c) => {
      const body = c.req.header("content-type")?.includes("json")
        ? await parseJson(c, EnrollmentTokenBody)
        : EnrollmentTokenBody.parse({});
      const d = db(c.env.DB);
      const f = await fleetByRef(d, c.req.param("fleet"));
      const minted = await mintSecret("sfe");
      const expiresAt = nowIso(Date.now() + body.ttl_minutes * 60_000);
      await d
        .insert(schema.enrollmentTokens)
        .values({ hash: minted.hash, fleetId: f.id, createdBy: currentUser(c).name, expiresAt })
        .run();
      // Never the token itself: it is a credential until an agent spends it.
      await recordAudit(c, {
        action: "enrollment_token.create",
        target: `fleet:${f.name}`,
        details: { expires_at: expiresAt },
      });
      return c.json({ token: minted.secret, fleet: f.name, expires_at: expiresAt, one_shot: true }, 201);
    },
  )
  .get(
    "/fleets/:fleet/maintenance",
    describe({
      id: "getFleetMaintenance",
      tag: "Fleets",
      summary: "A fleet's maintenance state: its drain, what it holds and what still blocks it",
      description:
        `${FLEET_REF} Maintenance can start when \`blockers\` is empty; \`paused\`, \`held\` and ` +
        "`blockers` are empty when the fleet is not draining.",
      role: "viewer",
      ok: { 200: Maintenance },
      errors: ["FLEET_NOT_FOUND"],
    }),
    requireRole("viewer"),
    async (c) => {
      const f = await fleetByRef(db(c.env.DB), c.req.param("fleet"));
      const stub = fleetStub(c.env, f.id);
      const [live, report] = await Promise.all([stub.inspect(), stub.drainStatus()]);
      return c.json({
        fleet: f.name,
        draining: live.draining,
        note: live.drain_note,
        queued: live.totals.queued,
        running: live.totals.running,
        ...drainView(report),
      });
    },
  )
  // Drain: new submits are refused with the note; queued jobs are held and running resumable jobs paused
  // (checkpoint, then release); running jobs that cannot resume are listed as blockers. Idempotent.
  // The Fleet DO is told first: it is the authority; the D1 flag lets admission refuse early.
  .post(
    "/fleets/:fleet/maintenance/drain",
    describe({
      id: "drainFleet",
      tag: "Fleets",
      summary: "Put a fleet into drain for maintenance",
      description:
        `${FLEET_REF} New submits are refused (409 \`FLEET_DRAINING\` with the note), queued jobs are held ` +
        "and running resumable jobs paused (checkpoint, then release); running jobs that cannot resume are " +
        "listed as `blockers`. Idempotent: draining a draining fleet moves nothing twice and replaces the note.",
      role: "admin",
      body: DrainBody,
      ok: { 200: DrainChange },
      errors: ["FLEET_NOT_FOUND"],
    }),
    requireRole("admin"),
    async (c) => {
      const body = await parseJson(c, DrainBody);
      const d = db(c.env.DB);
      const f = await fleetByRef(d, c.req.param("fleet"));
      const report = await fleetStub(c.env, f.id).setDrain(true, body.note);
      await d
        .update(schema.fleets)
        .set({ draining: true, drainNote: body.note })
        .where(eq(schema.fleets.id, f.id))
        .run();
      await recordAudit(c, {
        action: "fleet.drain",
        target: `fleet:${f.name}`,
        details: { note: body.note },
      });
      return c.json({ fleet: fleetView(await fleetByRef(d, f.id)), ...drainView(report) });
    },
  )
  .post(
    "/fleets/:fleet/maintenance/resume",
    describe({
      id: "resumeFleet",
      tag: "Fleets",
      summary: "End a fleet's drain",
      description:
        `${FLEET_REF} Every job the drain paused or held and that is still \`PAUSED\` is queued again in its ` +
        "original place (`resumed`); a scheduling pass runs. No body is read. Resuming a fleet that is not " +
        "draining changes nothing.",
      role: "admin",
      ok: { 200: DrainChange },
      errors: ["FLEET_NOT_FOUND"],
    }),
    requireRole("admin"),
    async (c) => {
      const d = db(c.env.DB);
      const f = await fleetByRef(d, c.req.param("fleet"));
      const report = await fleetStub(c.env, f.id).setDrain(false, null);
      await d
        .update(schema.fleets)
        .set({ draining: false, drainNote: null })
        .where(eq(schema.fleets.id, f.id))
        .run();
      await recordAudit(c, { action: "fleet.undrain", target: `fleet:${f.name}` });
      return c.json({ fleet: fleetView(await fleetByRef(d, f.id)), ...drainView(report) });
    },
  );

/** What a drain holds and what still blocks maintenance, as the API shows it. */
function drainView(r: DrainReport | null) {
  return {
    paused: r?.paused ?? [],
    held: r?.held ?? [],
    blockers: r?.blockers ?? [],
    resumed: r?.resumed ?? [],
  };
}
