import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "sqlite",
  schema: "./durable-objects/ledger/schema.ts",
  out: "./migrations",
});
