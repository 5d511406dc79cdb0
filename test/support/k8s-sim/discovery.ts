/**
 * The discovery documents (/api, /apis, /version…) that clients read before they talk to a
 * resource, listing what the simulated API server serves.
 */
import { ALL_VERBS, type Json, RESOURCES } from "./resources.js";

/** The discovery document at `path`, or undefined if there is none there. */
export function discovery(path: string, port: number): Json | undefined {
  const resources = (group: string) =>
    Object.values(RESOURCES)
      .filter((d) => d.group === group)
      .flatMap((d) => [
        {
          name: d.name,
          singularName: d.singular,
          namespaced: d.namespaced,
          kind: d.kind,
          verbs: ALL_VERBS,
        },
        ...(d.statusSubresource
          ? [
              {
                name: `${d.name}/status`,
                singularName: "",
                namespaced: d.namespaced,
                kind: d.kind,
                verbs: ["get", "patch", "update"],
              },
            ]
          : []),
      ]);
  const rayGroup = {
    name: "ray.io",
    versions: [{ groupVersion: "ray.io/v1", version: "v1" }],
    preferredVersion: { groupVersion: "ray.io/v1", version: "v1" },
  };
  const docs: Record<string, Json> = {
    "/api": {
      kind: "APIVersions",
      versions: ["v1"],
      serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress: `127.0.0.1:${port}` }],
    },
    "/api/v1": { kind: "APIResourceList", groupVersion: "v1", resources: resources("") },
    "/apis": { kind: "APIGroupList", apiVersion: "v1", groups: [rayGroup] },
    "/apis/ray.io": { kind: "APIGroup", apiVersion: "v1", ...rayGroup },
    "/apis/ray.io/v1": {
      kind: "APIResourceList",
      apiVersion: "v1",
      groupVersion: "ray.io/v1",
      resources: resources("ray.io"),
    },
    "/version": {
      major: "1",
      minor: "31",
      gitVersion: "v1.31.0-starforge-sim",
      gitCommit: "0000000000000000000000000000000000000000",
      gitTreeState: "clean",
      buildDate: "2024-08-13T00:00:00Z",
      goVersion: "go1.22.5",
      compiler: "gc",
      platform: "linux/amd64",
    },
  };
  return docs[path.replace(/\/$/, "")];
}
