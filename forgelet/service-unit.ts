/**
 * The systemd unit and environment file `forgelet install-service` writes, as pure functions of its
 * options (forgelet/service.ts does the writing). Why each line is there is said next to it, in the unit
 * itself, because an operator reads the unit, not this file.
 */
import type { ProxySettings } from "./settings.js";

export const UNIT_NAME = "forgelet.service";
export const DEFAULT_ENV_FILE = "/etc/forgelet/forgelet.env";
export const DEFAULT_STATE_DIR = "/var/lib/forgelet";
export const DEFAULT_UNIT_DIR = "/etc/systemd/system";
export const DEFAULT_USER = "forgelet";

export interface UnitOptions {
  node: string;
  forgelet: string;
  runtime: string;
  user: string;
  group: string;
  stateDir: string;
  envFile: string;
  /** More `forgelet run` flags, after --runtime and --state-dir. */
  runArgs: string[];
  version: string;
}

/** A path or word systemd takes without quoting trouble: no whitespace, quotes, backslashes or specifiers. */
export function plainPath(p: string): boolean {
  return /^\/[A-Za-z0-9._/+@:-]*$/.test(p);
}

/**
 * One ExecStart argument: `%` and `$` would be expanded by systemd (specifiers, environment variables),
 * so they are doubled; anything else unusual is double-quoted with C-style escapes.
 */
export function execArg(a: string): string {
  if (/[\n\r]/.test(a)) throw new Error(`a service argument cannot hold a line break: ${JSON.stringify(a)}`);
  const escaped = a.replace(/%/g, "%%").replace(/\$/g, "$$$$");
  if (escaped !== "" && /^[A-Za-z0-9_@%$+=:,./-]+$/.test(escaped)) return escaped;
  return `"${escaped.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

export function renderUnit(o: UnitOptions): string {
  const exec = [o.node, o.forgelet, "run", "--runtime", o.runtime, "--state-dir", o.stateDir, ...o.runArgs]
    .map(execArg)
    .join(" ");
  const docker = o.runtime === "docker";
  // StateDirectory= names a directory under /var/lib; elsewhere install-service creates and owns it.
  const underVarLib = /^\/var\/lib\/(.+)$/.exec(o.stateDir)?.[1];
  return `# Written by \`forgelet install-service\` (forgelet ${o.version}); run it again to change this file.
[Unit]
Description=StarForge forgelet agent (runtime ${o.runtime})
Wants=network-online.target${docker ? " docker.service" : ""}
After=network-online.target${docker ? " docker.service" : ""}

[Service]
Type=simple
User=${o.user}
Group=${o.group}
${docker ? "# The docker socket belongs to the docker group.\nSupplementaryGroups=docker\n" : ""}Environment=FORGELET_HOME=${o.stateDir}
# Proxy variables and the like (HTTPS_PROXY, NO_PROXY, NODE_EXTRA_CA_CERTS); optional.
EnvironmentFile=-${o.envFile}
ExecStart=${exec}
# A crash, or a start that fails (the docker daemon not up yet): try again, forever, 5 s apart.
Restart=on-failure
RestartSec=5
# Stop the agent only: the workloads it started keep running and are reattached on the next start, so a
# restart (an upgrade) does not kill training. Containers live under dockerd and are never in this unit.
KillMode=process
TimeoutStopSec=30
${underVarLib ? `StateDirectory=${underVarLib}\nStateDirectoryMode=0700\n` : ""}# Training needs many files and pinned memory (NCCL, RDMA).
LimitNOFILE=1048576
LimitMEMLOCK=infinity
# Hardening that leaves GPUs (/dev/nvidia*), the docker socket and shared training directories usable:
# no PrivateDevices, PrivateTmp, ProtectHome or MemoryDenyWriteExecute (Node's JIT needs it).
NoNewPrivileges=yes
ProtectSystem=full
ProtectKernelTunables=yes
ProtectKernelModules=yes
ProtectControlGroups=yes
RestrictSUIDSGID=yes
LockPersonality=yes

[Install]
WantedBy=multi-user.target
`;
}

/** A value for an EnvironmentFile line: quoted when it holds anything a shell-like reader would split. */
function envValue(v: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]*$/.test(v) ? v : `"${v.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

/** The environment file, filled with the proxy settings (and extra CA) install-service ran with. */
export function renderEnvFile(proxy: ProxySettings, extraCa: string | undefined): string {
  const line = (k: string, v: string | undefined, example: string) =>
    v ? `${k}=${envValue(v)}` : `#${k}=${example}`;
  return [
    "# Environment of the forgelet service (systemd EnvironmentFile: KEY=value, one a line).",
    "# Written by `forgelet install-service`, which keeps this file when run again.",
    "# Outbound proxy: https:// and wss:// go through HTTPS_PROXY, http:// and ws:// through HTTP_PROXY;",
    "# NO_PROXY lists hosts reached directly (host, .domain, host:port, or *).",
    line("HTTPS_PROXY", proxy.httpsProxy, "http://proxy.example.com:3128"),
    line("HTTP_PROXY", proxy.httpProxy, "http://proxy.example.com:3128"),
    line("NO_PROXY", proxy.noProxy || undefined, "localhost,127.0.0.1,.internal.example.com"),
    "# A private CA (a TLS-inspecting proxy, a control plane with its own CA):",
    line("NODE_EXTRA_CA_CERTS", extraCa, "/etc/forgelet/ca.pem"),
    "",
  ].join("\n");
}
