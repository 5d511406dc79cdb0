import { applyD1Migrations } from "cloudflare:test";
import { checkAnswersAgainstDocument } from "./openapi-conformance.js";
import { testEnv } from "./test-env.js";

// Storage is isolated per test file; every file starts from a migrated, empty ledger.
await applyD1Migrations(testEnv.DB, testEnv.TEST_MIGRATIONS);

// Every answer a test receives is one the OpenAPI document describes (test/worker/openapi-conformance.ts).
checkAnswersAgainstDocument();
