/**
 * Validates custom resources against a CustomResourceDefinition the way the Kubernetes API server does on
 * a create with fieldValidation=Strict, so tests catch a manifest the cluster would refuse without a
 * cluster. The CRD's structural schema is converted once into plain JSON Schema and compiled with ajv.
 *
 * Checked: apiVersion (a served version) and kind; ObjectMeta (name, namespace, label and annotation
 * keys, label values, unknown fields); type (with int-or-string and nullable), required (except fields
 * with a default, which the server fills in before validating), unknown fields (pruning under Strict),
 * enum, minimum/maximum, minLength/maxLength, pattern, minItems/maxItems, and the uniqueness of
 * `x-kubernetes-list-type: set` and `map` lists.
 * Not checked: CEL rules (`x-kubernetes-validations`: in ray.io_rayjobs.yaml the deletionStrategy rules,
 * managedBy's allowed values, and immutability rules that only apply to updates), `format` (there only
 * `date-time` in status), and the 256 KiB limit on annotations. Stricter than the server in one way: a
 * null where the schema is not nullable fails, whereas the server silently drops it (prunenulls.go);
 * a renderer emitting null has a bug either way.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv, type ErrorObject, type SchemaValidateFunction, type ValidateFunction } from "ajv";
import { parse } from "yaml";
import { z } from "zod";

type Schema = Record<string, unknown>;

const CrdFile = z.object({
  apiVersion: z.literal("apiextensions.k8s.io/v1"),
  kind: z.literal("CustomResourceDefinition"),
  spec: z.object({
    group: z.string(),
    names: z.object({ kind: z.string() }),
    versions: z.array(
      z.object({
        name: z.string(),
        served: z.boolean(),
        schema: z.object({ openAPIV3Schema: z.record(z.string(), z.unknown()) }),
      }),
    ),
  }),
});
type Crd = z.infer<typeof CrdFile>["spec"];

/** Keywords whose meaning is the same in JSON Schema; copied as they are. */
const COPIED = new Set([
  "enum",
  "minimum",
  "maximum",
  "minLength",
  "maxLength",
  "pattern",
  "minItems",
  "maxItems",
  "minProperties",
  "maxProperties",
  "multipleOf",
]);
/** Keywords that are annotations, are consumed by `convert`, or are knowingly not checked (see above). */
const HANDLED = new Set([
  "type",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "nullable",
  "description",
  "default",
  "format",
  "x-kubernetes-int-or-string",
  "x-kubernetes-preserve-unknown-fields",
  "x-kubernetes-list-type",
  "x-kubernetes-list-map-keys",
  "x-kubernetes-map-type",
  "x-kubernetes-validations",
]);

/** ObjectMeta's fields; the server-managed ones are accepted unchecked (a create ignores or sets them). */
const OBJECT_META: Schema = {
  type: "object",
  properties: {
    name: { type: "string" },
    generateName: { type: "string" },
    namespace: { type: "string" },
    labels: { type: "object", additionalProperties: { type: "string" } },
    annotations: { type: "object", additionalProperties: { type: "string" } },
    finalizers: { type: "array", items: { type: "string" } },
    ownerReferences: { type: "array" },
    ...Object.fromEntries(
      [
        "uid",
        "resourceVersion",
        "generation",
        "creationTimestamp",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "managedFields",
        "selfLink",
      ].map((field) => [field, {}]),
    ),
  },
  additionalProperties: false,
};

/** Our keyword for `x-kubernetes-list-type: map`: entries must differ in their key fields. */
const LIST_MAP = "k8sListMapKeys";
type ListMapSpec = { keys: string[]; defaults: Record<string, unknown> };
const uniqueKeys: SchemaValidateFunction = (spec: ListMapSpec, list: unknown[], _parent, cxt) => {
  const seen = new Set<string>();
  uniqueKeys.errors = [];
  for (const [i, entry] of list.entries()) {
    if (!isRecord(entry)) continue;
    // A key field left out takes its default, as the server defaults before it compares.
    const key = JSON.stringify(Object.fromEntries(spec.keys.map((k) => [k, entry[k] ?? spec.defaults[k]])));
    if (seen.has(key)) {
      uniqueKeys.errors.push({
        keyword: LIST_MAP,
        instancePath: `${cxt?.instancePath}/${i}`,
        message: `duplicate entry ${key}`,
      });
    }
    seen.add(key);
  }
  return uniqueKeys.errors.length === 0;
};
const ajv = new Ajv({ allErrors: true, allowUnionTypes: true }).addKeyword({
  keyword: LIST_MAP,
  type: "array",
  schemaType: "object",
  validate: uniqueKeys,
});
const validators = new Map<string, (obj: unknown) => string[]>();

/** Validates a custom resource against the CRD's openAPIV3Schema for its apiVersion, as a Kubernetes API server with fieldValidation=Strict would: returns the problems (empty when valid). */
export function crdValidator(crdFile: string): (obj: unknown) => string[] {
  const path = resolve(crdFile);
  let validator = validators.get(path);
  if (!validator) {
    validator = buildValidator(CrdFile.parse(parse(readFileSync(path, "utf8"))).spec);
    validators.set(path, validator);
  }
  return validator;
}

const RAYJOB_CRD = fileURLToPath(new URL("../fixtures/kuberay/ray.io_rayjobs.yaml", import.meta.url));

/** The RayJob validator for test/fixtures/kuberay/ray.io_rayjobs.yaml (loaded once, cached). */
export function validateRayJob(obj: unknown): string[] {
  return [...crdValidator(RAYJOB_CRD)(obj), ...rayJobNameProblems(obj)];
}

/**
 * KubeRay v1.7.0's own rule for RayJob names (`ValidateRayJobMetadata` in
 * ray-operator/controllers/ray/utils/validation.go; MaxRayJobNameLength in utils/constant.go): at most
 * 47 characters, because the RayCluster is named after the RayJob plus 6 characters and the cluster's
 * "-serve-svc" Service name must fit in 63; and a DNS-1035 label. The API server accepts such a RayJob;
 * the operator's webhook refuses it, or without the webhook the controller fails it (InvalidRayJobMetadata).
 */
function rayJobNameProblems(obj: unknown): string[] {
  const name = isRecord(obj) && isRecord(obj.metadata) ? obj.metadata.name : undefined;
  if (typeof name !== "string") return [];
  const tooLong = name.length > 47 ? ["must be no more than 47 characters for a RayJob (KubeRay)"] : [];
  return [...tooLong, ...dns1035Label(name)].map((p) => `metadata.name: ${p}`);
}

function buildValidator(crd: Crd): (obj: unknown) => string[] {
  const compiled = new Map<string, ValidateFunction>();
  return (obj) => {
    if (!isRecord(obj)) return ["(root): must be object"];
    const version = crd.versions.find((v) => v.served && obj.apiVersion === `${crd.group}/${v.name}`);
    if (!version) {
      const served = crd.versions.filter((v) => v.served).map((v) => `${crd.group}/${v.name}`);
      return [`apiVersion: must be one of ${served.join(", ")}`];
    }
    if (obj.kind !== crd.names.kind) return [`kind: must be ${crd.names.kind}`];
    let validate = compiled.get(version.name);
    if (!validate) {
      validate = ajv.compile(rootSchema(version.schema.openAPIV3Schema));
      compiled.set(version.name, validate);
    }
    validate(obj);
    return [...(validate.errors ?? []).map(toProblem), ...objectMetaProblems(obj.metadata)];
  };
}

/** The root's `metadata` is always ObjectMeta, whatever the CRD says (it may only narrow name). */
function rootSchema(openApi: Schema): Schema {
  const root = convert(openApi, "");
  return { ...root, properties: { ...(root.properties as Schema), metadata: OBJECT_META } };
}

/** One structural-schema node to JSON Schema; throws on a keyword it would otherwise silently ignore. */
function convert(node: Schema, at: string): Schema {
  const intOrString = node["x-kubernetes-int-or-string"] === true;
  const out: Schema = {};
  for (const [keyword, value] of Object.entries(node)) {
    if (COPIED.has(keyword)) out[keyword] = value;
    // The int-or-string anyOf ([integer, string]) is what `typeOf` expresses.
    else if (!HANDLED.has(keyword) && !(keyword === "anyOf" && intOrString)) {
      throw new Error(`${at || "(root)"}: schema keyword ${keyword} is not supported`);
    }
  }
  const type = typeOf(node);
  if (type !== undefined) out.type = type;
  Object.assign(out, objectKeywords(node, at), arrayKeywords(node, at));
  return out;
}

function typeOf(node: Schema): unknown {
  const type = node["x-kubernetes-int-or-string"] === true ? ["integer", "string"] : node.type;
  if (type === undefined || node.nullable !== true) return type;
  return [type, "null"].flat();
}

/**
 * Under Strict, a field the schema does not know is an error (the server would prune it), unless the
 * node preserves unknown fields; an object with neither properties nor additionalProperties knows none.
 */
function objectKeywords(node: Schema, at: string): Schema {
  if (node.type !== "object") return {};
  const properties = (node.properties ?? {}) as Record<string, Schema>;
  const additional = node.additionalProperties;
  const out: Schema = {
    properties: mapValues(properties, (p, name) => convert(p, `${at}.${name}`)),
    // A defaulted field is filled in before validation, so `required` cannot fail for it.
    required: ((node.required ?? []) as string[]).filter((f) => properties[f]?.default === undefined),
  };
  if (isRecord(additional)) out.additionalProperties = convert(additional, `${at}.*`);
  else if (additional === undefined && node["x-kubernetes-preserve-unknown-fields"] !== true) {
    out.additionalProperties = false;
  }
  return out;
}

function arrayKeywords(node: Schema, at: string): Schema {
  if (node.type !== "array" || !isRecord(node.items)) return {};
  const items = node.items;
  const out: Schema = { items: convert(items, `${at}[]`) };
  const listType = node["x-kubernetes-list-type"];
  if (listType === "set") out.uniqueItems = true;
  if (listType === "map") {
    const keys = node["x-kubernetes-list-map-keys"] as string[];
    const properties = (items.properties ?? {}) as Record<string, Schema>;
    const defaults = Object.fromEntries(keys.map((k) => [k, properties[k]?.default]));
    out[LIST_MAP] = { keys, defaults } satisfies ListMapSpec;
  }
  return out;
}

/** One ajv error as `path: problem`, the path written like a Kubernetes field path. */
function toProblem(e: ErrorObject): string {
  switch (e.keyword) {
    case "required":
      return `${fieldPath(e.instancePath, e.params.missingProperty)}: required`;
    case "additionalProperties":
      return `${fieldPath(e.instancePath, e.params.additionalProperty)}: unknown field`;
    case "type":
      return `${fieldPath(e.instancePath)}: must be ${String(e.params.type).replaceAll(",", " or ")}`;
    case "enum":
      return `${fieldPath(e.instancePath)}: must be one of ${(e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`;
    default:
      return `${fieldPath(e.instancePath)}: ${e.message}`;
  }
}

/** `/spec/containers/0/resources/limits/nvidia.com~1gpu` → `spec.containers[0].resources.limits[nvidia.com/gpu]`. */
function fieldPath(pointer: string, child?: string): string {
  const parts = pointer.split("/").slice(1);
  const segments = [
    ...parts.map((p) => p.replaceAll("~1", "/").replaceAll("~0", "~")),
    ...(child ? [child] : []),
  ];
  const path = segments.reduce(
    (acc, s) => (/^[A-Za-z_$][\w$]*$/.test(s) ? (acc ? `${acc}.${s}` : s) : `${acc}[${s}]`),
    "",
  );
  return path || "(root)";
}

/** What the API server checks in ObjectMeta beyond the types (ValidateObjectMeta in apimachinery). */
function objectMetaProblems(meta: unknown): string[] {
  if (meta === undefined) return ["metadata.name: required"];
  if (!isRecord(meta)) return [];
  const { name, generateName, namespace, labels, annotations } = meta;
  const problems: string[] = [];
  if (name === undefined && generateName === undefined) problems.push("metadata.name: required");
  if (typeof name === "string") problems.push(...dns1123Subdomain(name).map((p) => `metadata.name: ${p}`));
  if (typeof namespace === "string") {
    problems.push(...dns1123Label(namespace).map((p) => `metadata.namespace: ${p}`));
  }
  for (const [key, value] of isRecord(labels) ? Object.entries(labels) : []) {
    const found = [...qualifiedName(key), ...(typeof value === "string" ? labelValue(value) : [])];
    problems.push(...found.map((p) => `metadata.labels[${key}]: ${p}`));
  }
  for (const key of isRecord(annotations) ? Object.keys(annotations) : []) {
    problems.push(...qualifiedName(key.toLowerCase()).map((p) => `metadata.annotations[${key}]: ${p}`));
  }
  return problems;
}

/** The name part of a qualified name, and a non-empty label value. */
const NAME_PART = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const NAME_PART_SHAPE = "alphanumerics, '-', '_' or '.', starting and ending alphanumeric";

function dns1123Subdomain(value: string): string[] {
  const shape = "a lowercase RFC 1123 subdomain (a-z, 0-9, '-' or '.', starting and ending alphanumeric)";
  return shaped(value, 253, /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/, shape);
}

function dns1123Label(value: string): string[] {
  const shape = "a lowercase RFC 1123 label (a-z, 0-9 or '-', starting and ending alphanumeric)";
  return shaped(value, 63, /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, shape);
}

function dns1035Label(value: string): string[] {
  const shape = "a DNS-1035 label (a-z, 0-9 or '-', starting with a letter, ending alphanumeric)";
  return shaped(value, 63, /^[a-z]([-a-z0-9]*[a-z0-9])?$/, shape);
}

/** A label or annotation key: an optional DNS-subdomain prefix and '/', then a name of ≤ 63. */
function qualifiedName(value: string): string[] {
  const parts = value.split("/");
  if (parts.length > 2) return ["must have at most one '/'"];
  const [prefix, name] = parts.length === 2 ? parts : [undefined, value];
  return [
    ...(prefix === undefined ? [] : dns1123Subdomain(prefix).map((p) => `prefix ${p}`)),
    ...shaped(name ?? "", 63, NAME_PART, NAME_PART_SHAPE).map((p) => `name ${p}`),
  ];
}

function labelValue(value: string): string[] {
  return value === "" ? [] : shaped(value, 63, NAME_PART, NAME_PART_SHAPE).map((p) => `value ${p}`);
}

function shaped(value: string, max: number, pattern: RegExp, shape: string): string[] {
  return [
    ...(value.length > max ? [`must be no more than ${max} characters`] : []),
    ...(pattern.test(value) ? [] : [`must be ${shape}`]),
  ];
}

function mapValues<T, U>(record: Record<string, T>, f: (value: T, key: string) => U): Record<string, U> {
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, f(v, k)]));
}

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}
