/**
 * How deep parsed JSON may nest. No contract nests near the limit, and every recursive walk of a parsed
 * body (canonicalJson, JSON.stringify, zod, the structured clone of a Durable Object RPC) overflows the
 * stack on the 100 000 levels a 200 KB body can hold, which became a 500 (found by the fuzz suites).
 */
export const MAX_JSON_DEPTH = 100;

/** Does `value` nest objects or arrays deeper than `max`? Walks without recursion, so it cannot overflow. */
export function nestedDeeperThan(value: unknown, max = MAX_JSON_DEPTH): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (depth >= max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}
