/**
 * Every environment variable forgelet reads, in one place (flags on the command line win over them), and
 * the one file of its state directory other commands read: the node credential.
 *
 * | variable                     | meaning                                                        |
 * | ---------------------------- | -------------------------------------------------------------- |
 * | FORGELET_HOME                | state directory when --state-dir is not given (~/.forgelet)    |
 * | FORGELET_BACKOFF_MAX_MS      | longest wait between reconnects (30000)                        |
 * | FORGE_LOCAL_GPU_PASSTHROUGH  | `0`: containers start without `--gpus` (accounting unchanged)  |
 * | DOCKER_HOST                  | the docker daemon's unix socket (/var/run/docker.sock)         |
 * | HTTPS_PROXY / https_proxy    | proxy for https:// and wss:// (falls back to HTTP_PROXY)       |
 * | HTTP_PROXY / http_proxy      | proxy for http:// and ws://                                    |
 * | NO_PROXY / no_proxy          | hosts reached directly (forgelet/proxy.ts says how it matches) |
 *
 * The lower-case proxy variables win over the upper-case ones, as in curl and undici.
 */
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { z } from "zod";

export interface ProxySettings {
  httpProxy: string | undefined;
  httpsProxy: string | undefined;
  noProxy: string;
}

export interface ForgeletSettings {
  home: string;
  backoffMaxMs: number | undefined;
  gpuPassthrough: boolean;
  dockerHost: string | undefined;
  proxy: ProxySettings;
}

export function forgeletSettings(env: NodeJS.ProcessEnv = process.env): ForgeletSettings {
  const backoff = Number(env.FORGELET_BACKOFF_MAX_MS);
  const httpProxy = env.http_proxy || env.HTTP_PROXY || undefined;
  return {
    home: resolve(env.FORGELET_HOME || join(homedir(), ".forgelet")),
    backoffMaxMs:
      env.FORGELET_BACKOFF_MAX_MS && Number.isFinite(backoff) && backoff > 0 ? backoff : undefined,
    gpuPassthrough: env.FORGE_LOCAL_GPU_PASSTHROUGH !== "0",
    dockerHost: env.DOCKER_HOST || undefined,
    proxy: {
      httpProxy,
      httpsProxy: env.https_proxy || env.HTTPS_PROXY || httpProxy,
      noProxy: env.no_proxy ?? env.NO_PROXY ?? "",
    },
  };
}

/** `<state dir>/credential.json`, written by `forgelet enroll` (0600) and renewed by the running agent. */
export const CredentialFile = z.object({
  server: z.string().url(),
  node_id: z.string(),
  fleet_id: z.string(),
  fleet: z.string(),
  credential: z.string(),
  /** When the credential expires (the control plane renews it while the agent is connected). */
  expires_at: z.string().optional(),
});
export type CredentialFile = z.infer<typeof CredentialFile>;

export const CREDENTIAL_FILE = "credential.json";

/** The saved credential, or null when the state directory holds none; throws when the file is not one. */
export function readCredential(stateDir: string): CredentialFile | null {
  const file = join(stateDir, CREDENTIAL_FILE);
  if (!existsSync(file)) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    throw new Error(`${file} is not JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  const parsed = CredentialFile.safeParse(raw);
  if (!parsed.success) {
    throw new Error(
      `${file} is not a forgelet credential: ${parsed.error.issues[0]?.message ?? "bad shape"}`,
    );
  }
  return parsed.data;
}
