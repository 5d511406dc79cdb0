/** Types of scripts/pack.mjs, for the tests that import it. */
export function specifiers(code: string): string[];
