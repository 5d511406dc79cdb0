// biome-ignore lint/suspicious/noExplicitAny: OpenAPI documents are read as plain JSON
type Doc = any;
export function breakingChanges(oldDoc: Doc, newDoc: Doc): string[];
export function bumpAllowsBreaking(prev: string, next: string): boolean;
export function releasedDocument(): { from: string; doc: Doc };
