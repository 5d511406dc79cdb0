/** sf's byte progress bar: throughput and time left, and plain lines in logs (stderr not a terminal). */
import { afterEach, describe, expect, it, vi } from "vitest";
import { configureOutput, progress } from "../../cli/output.js";

const MiB = 1024 * 1024;

function capture(): { lines: () => string; restore: () => void } {
  let out = "";
  const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
    out += String(chunk);
    return true;
  });
  return { lines: () => out, restore: () => spy.mockRestore() };
}

describe("progress", () => {
  const tty = process.stderr.isTTY;
  afterEach(() => {
    process.stderr.isTTY = tty;
    configureOutput({ json: false });
  });

  it("on a terminal, redraws one line with bytes, percent, throughput and time left", () => {
    process.stderr.isTTY = true;
    let now = 0;
    const c = capture();
    const bar = progress("uploading", 100 * MiB, () => now);
    now = 2000;
    bar.add(20 * MiB);
    c.restore();
    expect(c.lines()).toContain("\r\x1b[2Kuploading [");
    expect(c.lines()).toContain("20.0 MiB/100.0 MiB (20%) 10.0 MiB/s, 8 s left");
  });

  it("counts skipped bytes (already stored) toward done but not toward throughput", () => {
    process.stderr.isTTY = true;
    let now = 0;
    const c = capture();
    const bar = progress("uploading", 100 * MiB, () => now);
    now = 1000;
    bar.skip(50 * MiB);
    bar.add(10 * MiB);
    c.restore();
    expect(c.lines()).toContain("60.0 MiB/100.0 MiB (60%) 10.0 MiB/s, 4 s left");
  });

  it("in a log, prints a plain line at most every 5 s, and nothing with --json", () => {
    process.stderr.isTTY = false;
    let now = 0;
    const c = capture();
    const bar = progress("uploading", 100 * MiB, () => now);
    now = 1000;
    bar.add(10 * MiB);
    expect(c.lines()).toBe("");
    now = 6000;
    bar.add(20 * MiB);
    now = 7000;
    bar.add(10 * MiB);
    c.restore();
    expect(c.lines()).toBe("uploading: 30.0 MiB/100.0 MiB (30%) 5.0 MiB/s, 14 s left\n");

    configureOutput({ json: true });
    const j = capture();
    const quiet = progress("uploading", 10, () => now);
    now = 60_000;
    quiet.add(5);
    j.restore();
    expect(j.lines()).toBe("");
  });
});
