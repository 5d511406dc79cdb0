/**
 * RBAC as deploy/kuberay/rbac.yaml grants it, enforced: which verbs on which resources a user's
 * bindings permit, and the 403 Forbidden the API server answers otherwise.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";
import { z } from "zod";
import { detailsOf, failure, type KubeError } from "./errors.js";
import { qualified, type ResourceDef } from "./resources.js";

const Rule = z.object({
  apiGroups: z.array(z.string()).default([]),
  resources: z.array(z.string()).default([]),
  verbs: z.array(z.string()),
  resourceNames: z.array(z.string()).optional(),
});
const Meta = z.object({ name: z.string(), namespace: z.string().optional() });
const Subject = z.object({ kind: z.string(), name: z.string(), namespace: z.string().optional() });
const RoleRef = z.object({ kind: z.enum(["Role", "ClusterRole"]), name: z.string() });
const RbacDoc = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("ServiceAccount"), metadata: Meta }),
  z.object({ kind: z.enum(["Role", "ClusterRole"]), metadata: Meta, rules: z.array(Rule) }),
  z.object({
    kind: z.enum(["RoleBinding", "ClusterRoleBinding"]),
    metadata: Meta,
    roleRef: RoleRef,
    subjects: z.array(Subject),
  }),
]);
type RbacDoc = z.infer<typeof RbacDoc>;
type RbacRule = z.infer<typeof Rule>;

export interface Access {
  verb: string;
  group: string;
  /** `rayjobs`, or `rayjobs/status` for a subresource. */
  resource: string;
  namespace?: string;
  name?: string;
}

export const RBAC_FILE = fileURLToPath(new URL("../../../deploy/kuberay/rbac.yaml", import.meta.url));

/**
 * The rules of a manifest, per user. Every `namespace:` in the file is read as `namespace`, as if the
 * file had been edited for that namespace before `kubectl apply`.
 */
export class Rbac {
  private readonly docs: RbacDoc[];

  constructor(file: string, namespace: string) {
    this.docs = parseAllDocuments(readFileSync(file, "utf8")).map((doc) => {
      const d = RbacDoc.parse(doc.toJS());
      if (d.metadata.namespace) d.metadata.namespace = namespace;
      if ("subjects" in d) for (const s of d.subjects) if (s.namespace) s.namespace = namespace;
      return d;
    });
  }

  permits(user: string, a: Access): boolean {
    return this.rulesFor(user, a.namespace).some((r) => ruleMatches(r, a));
  }

  private rulesFor(user: string, namespace: string | undefined): RbacRule[] {
    const rules: RbacRule[] = [];
    for (const b of this.docs) {
      if (b.kind !== "RoleBinding" && b.kind !== "ClusterRoleBinding") continue;
      if (b.kind === "RoleBinding" && b.metadata.namespace !== namespace) continue;
      if (!b.subjects.some((s) => subjectName(s) === user)) continue;
      const role = this.docs.find(
        (r) =>
          r.kind === b.roleRef.kind &&
          r.metadata.name === b.roleRef.name &&
          (r.kind === "ClusterRole" || r.metadata.namespace === b.metadata.namespace),
      );
      if (role && "rules" in role) rules.push(...role.rules);
    }
    return rules;
  }
}

function subjectName(s: z.infer<typeof Subject>): string {
  return s.kind === "ServiceAccount" ? `system:serviceaccount:${s.namespace}:${s.name}` : s.name;
}

function ruleMatches(r: RbacRule, a: Access): boolean {
  const any = (list: string[], v: string) => list.includes("*") || list.includes(v);
  if (!any(r.apiGroups, a.group) || !any(r.verbs, a.verb) || !any(r.resources, a.resource)) return false;
  return !r.resourceNames?.length || (a.name !== undefined && r.resourceNames.includes(a.name));
}

export function forbidden(user: string, a: Access, d: ResourceDef): KubeError {
  const what = a.name ? `${qualified(d)} "${a.name}"` : qualified(d);
  const where = a.namespace ? `in the namespace "${a.namespace}"` : "at the cluster scope";
  const message = `${what} is forbidden: User "${user}" cannot ${a.verb} resource "${a.resource}" in API group "${a.group}" ${where}`;
  return failure(403, "Forbidden", message, detailsOf(d, a.name));
}
