/**
 * The schemas the OpenAPI document names (components.schemas), so a generated client gets a type called
 * `JobSpec` or `JobDetail` rather than an inline shape at every use. A schema not listed here is inlined
 * where it is used. Recursive ones (JSON values) must be named: they can only be written as a `$ref`.
 */
import { z } from "zod";
import { FleetNetwork, JobView, QuotaBody } from "../../contract/api.schema.js";
import { DiagnosisView } from "../../contract/diagnosis-policy.js";
import { Digest } from "../../contract/digest.js";
import { DryRunJob, FleetInspect, JobDetail, NodeView, RunView } from "../../contract/fleet.schema.js";
import { JobSpec } from "../../contract/jobspec.schema.js";
import { PriorityClass } from "../../contract/priority-classes.js";
import { ProfileEntry } from "../../contract/profile-grammar.js";
import { Json, TransitionView } from "../../contract/readback.schema.js";
import {
  Artifact,
  AuditEntry,
  DeliveryView,
  FleetView,
  LogLine,
  MetricPoint,
  TeamEntry,
  TokenView,
  UserView,
  WebhookView,
} from "../../contract/responses.schema.js";
import { SecretView } from "../../contract/secrets.schema.js";
import {
  BudgetEventPayload,
  JobEventPayload,
  TestEventPayload,
} from "../../contract/webhook-payloads.schema.js";

/**
 * The names, over what the schemas say of themselves (`.describe()`, `.meta()`: zod's global registry),
 * which the converter would not read once it is given a registry of its own.
 */
export const componentRegistry = z.registry<{ id: string }>();
const named = componentRegistry.get.bind(componentRegistry);
componentRegistry.get = ((schema: z.ZodType) => {
  const own = z.globalRegistry.get(schema);
  const id = named(schema);
  return own || id ? { ...own, ...id } : undefined;
}) as typeof componentRegistry.get;

const NAMED: [z.ZodType, string][] = [
  [Json, "JsonValue"],
  [Digest, "Digest"],
  [JobSpec, "JobSpec"],
  [JobView, "JobSummary"],
  [JobDetail, "JobDetail"],
  [RunView, "Run"],
  [DiagnosisView, "Diagnosis"],
  [TransitionView, "JobEvent"],
  [DryRunJob, "DryRunJob"],
  [FleetView, "Fleet"],
  [FleetNetwork, "FleetNetwork"],
  [FleetInspect, "FleetLive"],
  [NodeView, "Node"],
  [UserView, "User"],
  [TokenView, "Token"],
  [QuotaBody, "Quota"],
  [ProfileEntry, "Profile"],
  [PriorityClass, "PriorityClass"],
  [TeamEntry, "Team"],
  [SecretView, "Secret"],
  [WebhookView, "Webhook"],
  [DeliveryView, "WebhookDelivery"],
  [AuditEntry, "AuditEntry"],
  [LogLine, "LogLine"],
  [MetricPoint, "MetricPoint"],
  [Artifact, "Artifact"],
  [JobEventPayload, "JobEventPayload"],
  [TestEventPayload, "TestEventPayload"],
  [BudgetEventPayload, "BudgetEventPayload"],
];
for (const [schema, id] of NAMED) componentRegistry.add(schema, { id });
