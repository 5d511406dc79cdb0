/** Types of scripts/wrangler-envs.mjs, for the tests that import it. */

/** The parts of a wrangler.toml environment the scripts read (wrangler's raw, unvalidated shape). */
export interface RawEnv {
  vars?: Record<string, string>;
  routes?: unknown[];
  d1_databases?: { binding: string; database_name: string; database_id: string; migrations_dir?: string }[];
  r2_buckets?: { binding: string; bucket_name: string }[];
  durable_objects?: { bindings?: { name: string; class_name: string }[] };
  ratelimits?: { name: string; namespace_id: string; simple?: { limit: number; period: number } }[];
  migrations?: unknown[];
}
export interface RawConfig extends RawEnv {
  compatibility_date?: string;
  compatibility_flags?: string[];
  env?: Record<string, RawEnv>;
}

export const ROOT: string;
export const PLACEHOLDER_DATABASE_ID: string;
export function isPlaceholderUrl(url: string | undefined): boolean;
export class ScriptError extends Error {
  code: string;
  constructor(code: string, message: string);
}
export function exitWith(script: string, err: unknown): never;
export function readRaw(configPath: string): RawConfig;
export function envNames(raw: RawConfig): string[];
export function requireEnv(raw: RawConfig, name: string | undefined, configPath: string): RawEnv;
export function envProblems(raw: RawConfig): string[];
export function assertEnvParity(raw: RawConfig, configPath: string): void;
export function notSetUp(env: RawEnv): string[];
export function setTomlValue(
  text: string,
  change: { table: string; key: string; literal: string; match?: { key: string; value: string } },
): string;
export function parseTomlText(text: string): RawConfig;
export function wranglerBin(): string;
export function localWrangler(): string;
export function wrangler(
  args: string[],
  opts?: { input?: string; cwd?: string; env?: Record<string, string>; local?: boolean; inherit?: boolean },
): { code: number; stdout: string; stderr: string; error?: Error };
export function plain(s: string): string;
export function parseJsonOutput(stdout: string): unknown;
