/**
 * Every environment variable forgelet reads, in one place (flags on the command line win over them).
 *
 * | variable                     | meaning                                                        |
 * | ---------------------------- | -------------------------------------------------------------- |
 * | FORGELET_HOME                | state directory when --state-dir is not given (~/.forgelet)    |
 * | FORGELET_BACKOFF_MAX_MS      | longest wait between reconnects (30000)                        |
 * | FORGE_LOCAL_GPU_PASSTHROUGH  | `0`: containers start without `--gpus` (accounting unchanged)  |
 * | DOCKER_HOST                  | the docker daemon's unix socket (/var/run/docker.sock)         |
 */
import { homedir } from "node:os";
import { join, resolve } from "node:path";

export interface ForgeletSettings {
  home: string;
  backoffMaxMs: number | undefined;
  gpuPassthrough: boolean;
  dockerHost: string | undefined;
}

export function forgeletSettings(env: NodeJS.ProcessEnv = process.env): ForgeletSettings {
  const backoff = Number(env.FORGELET_BACKOFF_MAX_MS);
  return {
    home: resolve(env.FORGELET_HOME || join(homedir(), ".forgelet")),
    backoffMaxMs:
      env.FORGELET_BACKOFF_MAX_MS && Number.isFinite(backoff) && backoff > 0 ? backoff : undefined,
    gpuPassthrough: env.FORGE_LOCAL_GPU_PASSTHROUGH !== "0",
    dockerHost: env.DOCKER_HOST || undefined,
  };
}
