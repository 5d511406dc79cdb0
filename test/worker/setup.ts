import { applyD1Migrations } from "cloudflare:test";
import { testEnv } from "./test-env.js";

// Storage is isolated per test file; every file starts from a migrated, empty ledger.
await applyD1Migrations(testEnv.DB, testEnv.TEST_MIGRATIONS);
