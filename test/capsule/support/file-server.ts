/** Shared per-file setup for capsule tests that use one ingest server across all their tests. */
import { afterAll, afterEach, beforeAll } from "vitest";
import { IngestServer } from "./ingest-server.js";
import { cleanAll, cleanTemps } from "./run-dir.js";

/** A train.sh that proves it ran (creates $FORGE_RUN_ROOT/ran): for tests that must show nothing ran. */
export const MARKER_SCRIPT = '#!/usr/bin/env bash\ntouch "$FORGE_RUN_ROOT/ran"\necho trained\n';

/** One ingest server for the whole file: started before, stopped after, its records cleared per test. */
export function ingestServerForFile(token: string): IngestServer {
  const server = new IngestServer(token);
  beforeAll(async () => {
    await server.start();
  });
  afterAll(async () => {
    await server.stop();
    cleanAll();
  });
  afterEach(() => {
    server.requests.length = 0;
    cleanTemps();
  });
  return server;
}
