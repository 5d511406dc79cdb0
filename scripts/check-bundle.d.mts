/** Types of scripts/check-bundle.mjs, for the tests that import it. */
export const PLATFORM_SIZE_LIMIT: number;
export const GZIP_BUDGET: number;
export const STARTUP_LIMIT_MS: number;
export const NODE_ALLOWED: string[];
export function nodeModuleName(spec: string): string | null;
export interface Metafile {
  inputs?: Record<
    string,
    { imports?: { path: string; kind: string; external?: boolean; original?: string }[] }
  >;
}
export function importProblems(
  meta: Metafile,
  root: string,
): { problems: { code: string; message: string }[]; external: string[] };
export function measure(outdir: string): { bytes: number; gzip: number };
export function workerdCpuMs(): number | null;
export function sizeFailures(size: { bytes: number; gzip: number }): { code: string; message: string }[];
