import { type D1Migration, env } from "cloudflare:test";
import type { AppEnv } from "../../worker/env.js";

/** The bindings as the Worker sees them, plus what the test config adds. */
export const testEnv = env as unknown as AppEnv & { TEST_MIGRATIONS: D1Migration[] };
