/**
 * The HTTP side of the simulated API server: listening on 127.0.0.1 (and outages), bearer-token
 * authentication, RBAC, routing to the REST handlers, and the helpers tests use (kubeconfig, nodes,
 * reading objects as the admin).
 */
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { join } from "node:path";
import { stringify } from "yaml";
import { discovery } from "./discovery.js";
import { failure, KubeError } from "./errors.js";
import { ResourceHandlers } from "./handlers.js";
import { type AddNodeOptions, nodeObject } from "./nodes.js";
import { forbidden, RBAC_FILE, Rbac } from "./rbac.js";
import { accessOf, parseRoute, readBody, sendJson } from "./requests.js";
import { type KubeObject, RESOURCES, type ResourceName } from "./resources.js";
import { labelSelector } from "./selectors.js";
import { KubeStore } from "./store.js";

export interface RequestLogEntry {
  method: string;
  path: string;
  query: Record<string, string>;
}

export interface K8sSimOptions {
  namespace?: string;
  /** The RBAC manifest to enforce for the ServiceAccount's token (default deploy/kuberay/rbac.yaml). */
  rbacFile?: string;
  /** How many changes a watch can replay (older resourceVersions get 410). */
  historyLimit?: number;
  /** How often a watch with allowWatchBookmarks=true gets a BOOKMARK (a real server: about a minute). */
  bookmarkIntervalMs?: number;
}

export async function startK8sSim(options: K8sSimOptions = {}): Promise<K8sSim> {
  const sim = new K8sSim(options);
  await sim.listen();
  return sim;
}

export class K8sSim {
  readonly store: KubeStore;
  readonly requests: RequestLogEntry[] = [];
  readonly namespace: string;
  readonly token = `sa-${randomBytes(16).toString("hex")}`;
  readonly adminToken = `admin-${randomBytes(16).toString("hex")}`;
  /** Who the ServiceAccount token authenticates as. */
  readonly user: string;
  private readonly rbac: Rbac;
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private readonly nodeInputs = new Map<string, AddNodeOptions>();
  private readonly handlers: ResourceHandlers;
  private port = 0;
  private up = false;
  private outageTimer: NodeJS.Timeout | undefined;

  constructor(options: K8sSimOptions) {
    this.namespace = options.namespace ?? "starforge";
    this.user = `system:serviceaccount:${this.namespace}:forgelet`;
    this.store = new KubeStore(options.historyLimit);
    this.rbac = new Rbac(options.rbacFile ?? RBAC_FILE, this.namespace);
    this.handlers = new ResourceHandlers(this.store, options.bookmarkIntervalMs ?? 1000);
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.on("connection", (s: Socket) => {
      this.sockets.add(s);
      s.on("close", () => this.sockets.delete(s));
    });
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Listens (again, on the same port after an outage). */
  async listen(): Promise<void> {
    if (this.up) return;
    await new Promise<void>((ok, fail) => {
      this.server.once("error", fail);
      this.server.listen(this.port, "127.0.0.1", () => {
        this.server.off("error", fail);
        ok();
      });
    });
    this.port = (this.server.address() as AddressInfo).port;
    this.up = true;
  }

  /**
   * An API server restart: stops accepting connections and breaks every open one (watches end
   * mid-stream). `ms`: listen again after that long; `true`/`false`: down/up until told otherwise.
   * Resolves once the server is down (or, for `false`, up). The store and the operator go on.
   */
  async outage(what: number | boolean): Promise<void> {
    clearTimeout(this.outageTimer);
    if (what === false) return this.listen();
    await this.stopListening();
    if (typeof what === "number") this.outageTimer = setTimeout(() => this.relisten(), what);
  }

  async close(): Promise<void> {
    clearTimeout(this.outageTimer);
    this.store.close();
    await this.stopListening();
  }

  /** A kubeconfig for the ServiceAccount (or another token). client-node 1.x refuses plain http unless insecure-skip-tls-verify is set. */
  kubeconfig(token: string = this.token): string {
    const cluster = "starforge-sim";
    return stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: cluster, cluster: { server: this.url, "insecure-skip-tls-verify": true } }],
      users: [{ name: "forgelet", user: { token } }],
      contexts: [{ name: cluster, context: { cluster, user: "forgelet", namespace: this.namespace } }],
      "current-context": cluster,
    });
  }

  writeKubeconfig(dir: string, token: string = this.token): string {
    const path = join(dir, "kubeconfig");
    writeFileSync(path, this.kubeconfig(token), { mode: 0o600 });
    return path;
  }

  /** The objects of a resource in the sim's namespace (all nodes for `nodes`), read as the admin. */
  list(resource: ResourceName, selector?: string): KubeObject[] {
    const ns = RESOURCES[resource].namespaced ? this.namespace : undefined;
    return this.store.list(resource, ns, labelSelector(selector));
  }

  get(resource: ResourceName, name: string): KubeObject | undefined {
    return this.store.get(resource, RESOURCES[resource].namespaced ? this.namespace : undefined, name);
  }

  compactHistory(): void {
    this.store.compact();
  }

  addNode(o: AddNodeOptions): KubeObject {
    this.nodeInputs.set(o.name, o);
    const { labels, ...rest } = nodeObject(o);
    return this.store.create("nodes", { ...rest, metadata: { name: o.name, labels } });
  }

  /** Changes a node added with addNode (GPU count, readiness, cordon, labels…). */
  patchNode(name: string, patch: Partial<Omit<AddNodeOptions, "name">>): KubeObject {
    const prev = this.nodeInputs.get(name);
    const cur = this.store.get("nodes", undefined, name);
    if (!prev || !cur) throw new Error(`no node ${name} added by addNode`);
    const o = { ...prev, ...patch };
    this.nodeInputs.set(name, o);
    const { labels, ...rest } = nodeObject(o);
    return this.store.replace("nodes", { ...cur, ...rest, metadata: { ...cur.metadata, labels } });
  }

  /** Back after an outage; should the port be taken meanwhile, try again shortly (a restart would). */
  private relisten(): void {
    this.listen().catch(() => {
      this.outageTimer = setTimeout(() => this.relisten(), 100);
    });
  }

  private async stopListening(): Promise<void> {
    if (!this.up) return;
    this.up = false;
    const closed = new Promise<void>((ok) => this.server.close(() => ok()));
    for (const s of this.sockets) s.destroy();
    await closed;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://sim");
    const query = Object.fromEntries(url.searchParams);
    const method = req.method ?? "GET";
    this.requests.push({ method, path: url.pathname, query });
    try {
      const user = this.authenticate(req);
      const body = await readBody(req);
      const found = discovery(url.pathname, this.port);
      if (found && method === "GET") return sendJson(res, 200, found);
      const route = parseRoute(url.pathname);
      const access = accessOf(method, route, query);
      if (user !== "admin" && !this.rbac.permits(user, access)) throw forbidden(user, access, route.d);
      await this.handlers.dispatch(method, route, query, body, res);
    } catch (err) {
      const status =
        err instanceof KubeError ? err.status : failure(500, "InternalError", String(err)).status;
      if (!res.headersSent) sendJson(res, status.code, status);
      else res.end();
    }
  }

  private authenticate(req: IncomingMessage): string {
    const auth = req.headers.authorization ?? "";
    if (auth === `Bearer ${this.adminToken}`) return "admin";
    if (auth === `Bearer ${this.token}`) return this.user;
    throw failure(401, "Unauthorized", "Unauthorized");
  }
}
