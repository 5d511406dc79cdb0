/**
 * fast-check generators for the fuzz suites: mutations of a valid JSON body (drop, rename, retype a field,
 * out-of-range numbers, unicode, NUL, huge and deeply nested values), garbage bodies, odd headers, path
 * parameters and query strings. Values too big to print in a counterexample (a 1 MiB string, 100 000
 * levels of nesting) travel as short sentinels that `serialize` expands only when the body is sent.
 */
import fc from "fast-check";

/** Stands for a value that is expanded on the wire only (see SENTINELS). */
const sentinel = (name: string) => `\u0001${name}\u0001`;

/** Raw JSON text each sentinel becomes: what JSON.stringify could not produce, or should not print. */
const SENTINELS: Record<string, () => string> = {
  // Deep enough to overflow any recursive walk of the parsed value (canonicalJson, zod, JSON.stringify).
  DEEP_ARRAY: () => `${"[".repeat(100_000)}${"]".repeat(100_000)}`,
  DEEP_OBJECT: () => `${'{"a":'.repeat(50_000)}1${"}".repeat(50_000)}`,
  WIDE_OBJECT: () => `{${Array.from({ length: 20_000 }, (_, i) => `"k${i}":${i}`).join(",")}}`,
  LONG_ARRAY: () => `[${Array.from({ length: 5_000 }, (_, i) => `{"i":${i}}`).join(",")}]`,
  // Over the 1 MiB JSON body limit on its own.
  HUGE_STRING: () => JSON.stringify("x".repeat(1_100_000)),
  BIG_STRING: () => JSON.stringify("é".repeat(70_000)),
  BIG_NUMBER: () => "1e400",
  NEG_BIG_NUMBER: () => "-1e400",
  LONG_INTEGER: () => "123456789012345678901234567890",
  NEG_ZERO: () => "-0",
};

export const SENTINEL_VALUES = Object.keys(SENTINELS).map(sentinel);

/** JSON text for a generated value, with every sentinel expanded. */
export function serialize(value: unknown): string {
  let text = JSON.stringify(value) ?? "null";
  for (const [name, expand] of Object.entries(SENTINELS)) {
    const quoted = JSON.stringify(sentinel(name));
    if (text.includes(quoted)) text = text.split(quoted).join(expand());
  }
  return text;
}

/** Values that break assumptions: wrong types, limits, encodings, prototype keys, huge and deep values. */
export const weirdValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(
    null,
    true,
    false,
    0,
    -1,
    1.5,
    2 ** 31,
    2 ** 53 + 2,
    -(2 ** 53) - 2,
    1e308,
    -1e308,
    5e-324,
    "",
    " ",
    "0",
    "-1",
    "1e3",
    "NaN",
    "true",
    "null",
    "\u0000",
    "a\u0000b",
    "\ud800",
    "\uffff\ufffe",
    "😀".repeat(64),
    "‮rtl",
    "../../etc/passwd",
    "%00%2e%2e",
    "<script>alert(1)</script>",
    "'; DROP TABLE jobs; --",
    "__proto__",
    "constructor",
    [],
    {},
    [null],
    [[[]]],
    { __proto__: { polluted: true } },
    JSON.parse('{"__proto__":{"polluted":true}}'),
    { constructor: { prototype: { polluted: true } } },
    ...SENTINEL_VALUES,
  ),
  fc.integer(),
  fc.double(),
  fc.string({ maxLength: 24 }),
  fc.string({ unit: "binary", maxLength: 24 }),
  fc.jsonValue({ maxDepth: 2 }),
);

/** Keys a mutation renames to or adds. */
const weirdKey = fc.oneof(
  fc.constantFrom(
    "",
    " ",
    "__proto__",
    "constructor",
    "prototype",
    "toString",
    "\u0000",
    "é",
    "run_id",
    "id",
  ),
  fc.string({ maxLength: 12 }),
);

type Path = Array<string | number>;

function pathsOf(value: unknown, at: Path = [], out: Path[] = []): Path[] {
  out.push(at);
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) pathsOf(v, [...at, i], out);
  } else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) pathsOf(v, [...at, k], out);
  }
  return out;
}

function getAt(root: unknown, path: Path): unknown {
  return path.reduce<unknown>((v, k) => (v as Record<string | number, unknown>)[k], root);
}

const MUTATIONS = ["drop", "rename", "retype", "wrap", "add", "repeat"] as const;

interface Mutation {
  at: number;
  op: (typeof MUTATIONS)[number];
  key: string;
  value: unknown;
  times: number;
}

/** Applies one mutation to a (cloned) value at the `at`-th of its paths, depth first. */
function mutate(root: unknown, m: Mutation): unknown {
  const paths = pathsOf(root);
  const path = paths[m.at % paths.length]!;
  const target = getAt(root, path);
  // A copy: the generated value may be a shared constant, and a later mutation may change it in place.
  const value = structuredClone(m.value);
  const replace = (next: unknown): unknown => {
    if (path.length === 0) return next;
    const parent = getAt(root, path.slice(0, -1)) as Record<string | number, unknown>;
    parent[path[path.length - 1]!] = next;
    return root;
  };
  switch (m.op) {
    case "drop":
      if (path.length === 0) return undefined;
      if (Array.isArray(getAt(root, path.slice(0, -1))))
        (getAt(root, path.slice(0, -1)) as unknown[]).splice(path[path.length - 1] as number, 1);
      else
        delete (getAt(root, path.slice(0, -1)) as Record<string, unknown>)[path[path.length - 1] as string];
      return root;
    case "rename": {
      const parent = path.length ? getAt(root, path.slice(0, -1)) : null;
      if (!parent || Array.isArray(parent)) return replace(value);
      const p = parent as Record<string, unknown>;
      delete p[path[path.length - 1] as string];
      Object.defineProperty(p, m.key, {
        value: target,
        enumerable: true,
        writable: true,
        configurable: true,
      });
      return root;
    }
    case "retype":
      return replace(value);
    case "wrap":
      return replace(m.times % 2 ? [target] : { value: target });
    case "add":
      if (Array.isArray(target)) target.push(value);
      else if (target && typeof target === "object")
        Object.defineProperty(target, m.key, {
          value,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      else return replace(value);
      return root;
    case "repeat":
      if (Array.isArray(target))
        return replace(Array.from({ length: m.times * 60 }, () => target[0] ?? null));
      if (typeof target === "string") return replace(target.repeat(Math.min(m.times * 100, 5000)));
      if (typeof target === "number") return replace(target * 10 ** m.times);
      return replace(value);
  }
}

const mutation: fc.Arbitrary<Mutation> = fc.record({
  at: fc.nat(),
  op: fc.constantFrom(...MUTATIONS),
  key: weirdKey,
  value: weirdValue,
  times: fc.integer({ min: 1, max: 12 }),
});

/** A valid value with one to three mutations. */
export function mutated(valid: unknown): fc.Arbitrary<unknown> {
  return fc
    .array(mutation, { minLength: 1, maxLength: 3 })
    .map((ms) => ms.reduce<unknown>((v, m) => mutate(v, m), structuredClone(valid)));
}

/** A body as sent: JSON text, other text, raw bytes, or none. */
export type Body =
  | { kind: "json"; value: unknown }
  | { kind: "text"; text: string }
  | { kind: "bytes"; bytes: number[] }
  | { kind: "none" };

/** Bodies no parser should accept, and bodies that almost parse. */
export function garbage(valid?: unknown): fc.Arbitrary<Body> {
  const text = valid === undefined ? '{"a":1}' : JSON.stringify(valid);
  return fc.oneof(
    fc
      .constantFrom(
        "",
        "{",
        "}",
        "[",
        "null",
        "true",
        "0",
        '"x"',
        '{"a":1,}',
        "{'a':1}",
        "\ufeff{}",
        "NaN",
        "[NaN, Infinity, -Infinity]",
        '{"a":NaN}',
        "\u0000",
        "a=1&b=2",
        "--x\r\nContent-Disposition: form-data; name=a\r\n\r\n1\r\n--x--\r\n",
        '{"a":1}{"b":2}',
        '{"a":1,"a":2}',
      )
      .map((t): Body => ({ kind: "text", text: t })),
    fc.nat({ max: text.length }).map((n): Body => ({ kind: "text", text: text.slice(0, n) })),
    fc.string({ maxLength: 64 }).map((t): Body => ({ kind: "text", text: t })),
    fc
      .array(fc.integer({ min: 0, max: 255 }), { maxLength: 64 })
      .map((b): Body => ({ kind: "bytes", bytes: b })),
    fc.constantFrom(...SENTINEL_VALUES).map((v): Body => ({ kind: "json", value: v })),
  );
}

/** A body for a route whose valid body is `valid` (JSON), or that takes none (`undefined`). */
export function bodyFor(valid: unknown): fc.Arbitrary<Body> {
  if (valid === undefined)
    return fc.oneof(
      { weight: 6, arbitrary: fc.constant<Body>({ kind: "none" }) },
      { weight: 1, arbitrary: garbage() },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }).map((v): Body => ({ kind: "json", value: v })) },
    );
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant<Body>({ kind: "json", value: valid }) },
    { weight: 7, arbitrary: mutated(valid).map((v): Body => ({ kind: "json", value: v })) },
    { weight: 2, arbitrary: garbage(valid) },
    { weight: 1, arbitrary: fc.constant<Body>({ kind: "none" }) },
  );
}

export const CONTENT_TYPES = [
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data",
  "multipart/form-data; boundary=x",
  "application/json; charset=utf-16",
  "application/octet-stream",
  "json",
  "",
];

/** Header values as fetch accepts them (bytes, no NUL/CR/LF), odd in every other way. */
const headerValue = fc.oneof(
  fc.constantFrom("", " ", "x".repeat(200), "x".repeat(8_000), "\u007f", "a\tb", "null", "-1", "%00"),
  fc.string({ maxLength: 40 }).map((s) => s.replace(/[^\x20-\x7e]/g, "?")),
);

/** Odd extra headers: idempotency keys, client addresses, SSE cursors, upgrades, a huge header. */
export const oddHeaders: fc.Arbitrary<Array<[string, string]>> = fc.array(
  fc.oneof(
    fc.tuple(fc.constant("idempotency-key"), headerValue),
    fc.tuple(fc.constant("content-type"), fc.constantFrom(...CONTENT_TYPES)),
    fc.tuple(
      fc.constantFrom("cf-connecting-ip", "x-forwarded-for"),
      fc.oneof(
        headerValue,
        fc.constantFrom("::", ":::::::::", "::ffff:1.2.3.4", "fe80::1%eth0", "[::1]", "1.2.3.4, 5.6.7.8"),
      ),
    ),
    fc.tuple(
      fc.constant("last-event-id"),
      fc.oneof(headerValue, fc.constantFrom("5", "1e9", "99999999999999999999")),
    ),
    fc.tuple(fc.constantFrom("upgrade", "accept", "x-fuzz", "if-none-match", "range"), headerValue),
  ),
  { maxLength: 3 },
);

/** Path parameter values, already as they appear in the URL: empty, long, odd escapes, dot segments. */
export const oddSegment: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "",
    "%",
    "%zz",
    "%00",
    "%2F",
    "%2e%2e",
    "..",
    ".",
    "%C3%A9",
    "%E0%A4%A",
    "%FF",
    "%uD800",
    "a".repeat(3_000),
    "x%20y",
    "+",
    "~",
    "__proto__",
    "constructor",
    "-1",
    "1e400",
    "null",
    `sha256:${"g".repeat(64)}`,
    "job_00000000000000000000000000",
    "run_",
  ),
  fc.string({ maxLength: 24 }).map(encodeURIComponent),
);

/** Query parameters routes read, sent with odd values to any route. */
export const QUERY_KEYS = [
  "user",
  "limit",
  "cursor",
  "run",
  "all",
  "status",
  "fleet",
  "offset",
  "rank",
  "stream",
  "follow",
  "key",
  "after",
  "step",
  "path",
  "digest",
  "since",
  "until",
  "actor",
  "action",
  "target",
  "state",
  "node",
  "user_code",
  "from",
  "to",
];

const queryValue = fc.oneof(
  fc.constantFrom(
    "",
    "-1",
    "0",
    "abc",
    "1e3",
    "0x10",
    "NaN",
    "Infinity",
    "99999999999999999999",
    "1.5",
    "true",
    "%",
    "%zz",
    "%E0%A4%A",
    "running,UNKNOWN",
    ",,,",
    "run_",
    "a".repeat(5_000),
    "2024-13-45",
    "9999-12-31T23:59:59Z",
  ),
  fc.string({ maxLength: 16 }).map(encodeURIComponent),
);

/**
 * A query string: the route's valid one (`valid`, already encoded) with keys dropped, changed or added,
 * or raw garbage after it.
 */
export function queryFor(valid: Record<string, string>): fc.Arbitrary<string> {
  const encoded = (q: Record<string, string>) =>
    Object.entries(q)
      .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
      .join("&");
  const changed = fc
    .array(fc.tuple(fc.constantFrom(...Object.keys(valid), ...QUERY_KEYS), fc.option(queryValue)), {
      minLength: 1,
      maxLength: 3,
    })
    .map((edits) => {
      const parts = new Map(Object.entries(valid).map(([k, v]) => [k, encodeURIComponent(v)]));
      for (const [k, v] of edits) {
        if (v === null) parts.delete(k);
        else parts.set(k, v);
      }
      return [...parts].map(([k, v]) => `${k}=${v}`).join("&");
    });
  return fc.oneof(
    { weight: 4, arbitrary: fc.constant(encoded(valid)) },
    { weight: 4, arbitrary: changed },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom("&&", "=", "%=%", "limit=1&limit=abc", "a=%E0%A4%A", "?", "#frag", "a[b]=1")
        .map((g) => [encoded(valid), g].filter(Boolean).join("&")),
    },
  );
}
