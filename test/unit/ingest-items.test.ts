/**
 * The pure parts of ingest compatibility: Python's JSON (NaN/Infinity) read without losing the batch,
 * batches checked item by item, and the original client's terminal-text chunks turned into lines.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkItems, logTarget, MetricPoint } from "../../contract/ingest.schema.js";
import { consoleLines } from "../../durable-objects/run/policy.js";
import { parsePythonJson, replaceNonFinite } from "../../worker/services/python-json.js";

describe("parsePythonJson", () => {
  it("reads Python's NaN, Infinity and -Infinity as null, but never inside strings", () => {
    expect(parsePythonJson('{"a": NaN, "b": [Infinity, -Infinity, -1.5], "c": "NaN -Infinity"}')).toEqual({
      a: null,
      b: [null, null, -1.5],
      c: "NaN -Infinity",
    });
    expect(replaceNonFinite('{"k\\"NaN": NaN}')).toBe('{"k\\"NaN": null}');
  });

  it("still refuses what is not JSON", () => {
    expect(() => parsePythonJson("{not json")).toThrow(SyntaxError);
    expect(() => parsePythonJson('{"a": nan}')).toThrow(SyntaxError);
  });

  it("refuses JSON nested deeper than 100 levels, which later walks of the value could not survive", () => {
    const nest = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`;
    expect(parsePythonJson(nest(100))).toBeInstanceOf(Array);
    expect(() => parsePythonJson(nest(101))).toThrow(/deeper than 100/);
    expect(() => parsePythonJson(`{"a": NaN, "b": ${nest(100_000)}}`)).toThrow(SyntaxError);
  });

  it("parses every standard JSON document exactly as JSON.parse does", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const text = JSON.stringify(v);
        expect(parsePythonJson(text)).toEqual(JSON.parse(text));
        expect(replaceNonFinite(text)).toBe(text);
      }),
    );
  });
});

describe("checkItems", () => {
  it("keeps valid items with their index and rejects the others with a reason", () => {
    const r = checkItems(
      [
        { key: "a", step: 0, value: 1 },
        { key: "a", step: -1, value: 1 },
        "x",
        { key: "b", step: 1, value: 2 },
      ],
      MetricPoint,
      3,
    );
    expect(r.valid.map((v) => v.index)).toEqual([0]);
    expect(r.rejected).toEqual([
      { index: 1, code: "INVALID_ITEM", message: expect.stringMatching(/^step: /) },
      { index: 2, code: "INVALID_ITEM", message: expect.any(String) },
      { index: 3, code: "OVER_LIMIT", message: "a request carries at most 3 items" },
    ]);
  });

  it("measures items against a byte limit", () => {
    const r = checkItems([{ key: "k", step: 0, value: 1, ts: "é".repeat(30) }], MetricPoint, 10, {
      maxBytes: 50,
    });
    expect(r.rejected[0]).toMatchObject({ index: 0, code: "OVER_LIMIT" });
  });
});

describe("logTarget", () => {
  it("sends sequenced batches to their stream and unsequenced ones to the console", () => {
    const base = { run_id: "run_x", chunks: [] };
    expect(logTarget({ ...base, seq: 3, stream: "stderr", rank: 2 })).toEqual({
      rank: 2,
      stream: "stderr",
      sequenced: true,
    });
    expect(logTarget({ ...base, seq: 0 })).toEqual({ rank: 0, stream: "stdout", sequenced: true });
    expect(logTarget({ ...base, seq: null, rank: 1 })).toEqual({
      rank: 1,
      stream: "console",
      sequenced: false,
    });
  });
});

describe("consoleLines", () => {
  it("splits terminal text into lines without dropping a last line that has no newline", () => {
    expect(consoleLines("a\nb\r\nc", 100)).toEqual(["a", "b", "c"]);
    expect(consoleLines("a\n", 100)).toEqual(["a"]);
    expect(consoleLines("\n", 100)).toEqual([""]);
    expect(consoleLines("", 100)).toEqual([]);
    expect(consoleLines("50%\r60%\n", 100)).toEqual(["50%\r60%"]);
  });

  it("cuts long lines into pieces that never split a surrogate pair", () => {
    expect(consoleLines("abcdefg", 3)).toEqual(["abc", "def", "g"]);
    expect(consoleLines("ab😀cd", 3)).toEqual(["ab", "😀c", "d"]);
  });

  it("loses no text: rejoining the lines gives the chunk back (newline-terminated, CRs of CRLF aside)", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "grapheme", maxLength: 200 }),
        fc.integer({ min: 2, max: 20 }),
        (text, max) => {
          const chunk = text.replaceAll("\r", "");
          const got = consoleLines(chunk, max);
          expect(got.every((l) => l.length <= max)).toBe(true);
          // Pieces of a cut line concatenate back; lines join with "\n".
          const joined = consoleLines(chunk, Number.MAX_SAFE_INTEGER).join("\n");
          expect(got.join("")).toBe(joined.replaceAll("\n", ""));
          expect(chunk === "" ? "" : chunk.endsWith("\n") ? `${joined}\n` : joined).toBe(chunk);
        },
      ),
    );
  });
});
