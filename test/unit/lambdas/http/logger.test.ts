// Log lines carry caller text (tool names, queries, correlation ids, error messages): neither logger
// may let it start a line of its own or reach an operator's terminal as an escape sequence.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { coalescedWriter, jsonLogger, readableLine, readableLogger, shown } from "../../../../lambdas/http/logger.js";

const AT = new Date("2026-12-01T12:00:00.000Z");
// ESC ] (OSC: set the window title), ESC [ 2J (clear the screen), CSI as one C1 character, BEL,
// a right-to-left override, a line separator and a zero-width space.
const HOSTILE = ["\x1b]0;owned\x07", "\x1b[2J", "\u009b2J", "\u202etxt.exe", "a\u2028b", "zero\u200bwidth", "del\x7f"];
// Anything a terminal acts on, or that disguises text, must not be printed raw.
const RAW_UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;

/** Everything one logger call wrote. */
const capture = (make: (write: (l: string) => void) => ReturnType<typeof readableLogger>, act: (log: ReturnType<typeof readableLogger>) => void) => {
  let out = "";
  act(make((l) => (out += l)));
  return out;
};

describe("readable log lines (npm start)", () => {
  it("a tool name with a newline forged a whole audit line for another principal: it stays inside the one call line, quoted", () => {
    const forged = "kv.get\n12:00:00.001 call OK 200 admin.delete_all 1ms principal=root";
    const line = readableLine("info", "call", { outcome: "TOOL_NOT_FOUND", status: 404, tool: forged, latency_ms: 1.5, principal: "mallory" }, AT);
    expect(line.split("\n")).toHaveLength(1);
    expect(line).toBe(`12:00:00.000 call TOOL_NOT_FOUND 404 ${JSON.stringify(forged)} 1.5ms principal=mallory`);
  });

  it("ANSI and OSC escapes, C1 controls and bidi overrides in any field come out as \\u escapes, never raw", () => {
    for (const bad of HOSTILE) {
      const lines = [
        readableLine("info", "call", { outcome: "OK", status: 200, tool: bad, resolved_from: bad, latency_ms: 2, principal: "p", correlation_id: bad }, AT),
        readableLine("info", "find", { verdict: "none", query: bad, top_tool: bad, latency_ms: 1, principal: bad, via: "rest" }, AT),
        readableLine("warn", "could not record a find miss", { query: bad, error: new Error(`bad ${bad}`) }, AT),
        readableLine("error", "backend failed", { [bad]: bad, error: new Error(bad) }, AT),
      ];
      for (const line of lines) {
        expect(line, JSON.stringify(line)).not.toMatch(RAW_UNSAFE);
        expect(line.split("\n")).toHaveLength(1);
      }
      expect(lines[0]).toContain(
        `correlation_id=${JSON.stringify(bad).replace(/[\u0080-\u009f\u200b\u2028\u202e\u007f]/gu, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)}`,
      );
    }
  });

  it("quotes a correlation id or principal with spaces, quotes or `=`; bare words, numbers and our codes print as they are", () => {
    const line = readableLine(
      "info",
      "call",
      { outcome: "OK", status: 200, tool: "kv.get", latency_ms: 3, principal: "alice", correlation_id: 'x" principal=root' },
      AT,
    );
    expect(line).toBe('12:00:00.000 call OK 200 kv.get 3ms principal=alice correlation_id="x\\" principal=root"');
    expect(readableLine("warn", "store slow", { table: "toolbelt-sessions", ms: 12, retried: true }, AT)).toBe(
      "12:00:00.000 WARN store slow table=toolbelt-sessions ms=12 retried=true",
    );
  });

  it("prints one line per find with its verdict, the query quoted and clipped, the top tool, its time and principal", () => {
    const out = capture(readableLogger, (log) =>
      log.info("find", {
        verdict: "match",
        query: "send a mail to bob",
        top_tool: "mail.send",
        latency_ms: 0.8,
        principal: "alice",
        via: "rest",
        Finds: 1,
        _aws: {},
      }),
    );
    expect(out).toMatch(/^\d\d:\d\d:\d\d\.\d{3} find match "send a mail to bob" top=mail\.send 0\.8ms principal=alice via=rest\n$/);
    const long = readableLine("info", "find", { verdict: "none", query: "q".repeat(500), latency_ms: 1, principal: "bob" }, AT);
    expect(long).toBe(`12:00:00.000 find none "${"q".repeat(80)}…" top=- 1ms principal=bob`);
  });

  it("shown() turns any string into one inert token that reads back as the string", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: "binary" }), fc.string({ unit: "grapheme-ascii" })), (s) => {
        const token = shown(s);
        expect(token).not.toMatch(RAW_UNSAFE);
        if (token.startsWith('"')) expect(JSON.parse(token)).toBe(s);
        else expect(token).toMatch(/^[\w.:/@+,-]+$/);
      }),
    );
  });
});

describe("JSON log lines", () => {
  it("escape C1 controls, bidi and zero-width characters too (JSON.stringify leaves them raw), and still parse back to the same record", () => {
    for (const bad of HOSTILE) {
      const out = capture(jsonLogger, (log) => log.info("call", { tool: bad, correlation_id: bad }));
      expect(out.endsWith("\n") && out.indexOf("\n") === out.length - 1).toBe(true);
      expect(out.slice(0, -1), JSON.stringify(out)).not.toMatch(RAW_UNSAFE);
      expect(JSON.parse(out)).toMatchObject({ tool: bad, correlation_id: bad });
    }
  });
});

describe("coalescedWriter (npm start's log)", () => {
  it("writes the lines of one event-loop turn in one write, in order, and the next turn's in another", async () => {
    const writes: string[] = [];
    const out = coalescedWriter((text) => writes.push(text));
    out.write("a\n");
    out.write("b\n");
    expect(writes).toEqual([]);
    await new Promise((r) => setImmediate(r));
    out.write("c\n");
    await new Promise((r) => setImmediate(r));
    expect(writes).toEqual(["a\nb\n", "c\n"]);
  });

  it("flush() writes what waits at once (the process is exiting), and the scheduled turn then writes nothing twice", async () => {
    const writes: string[] = [];
    const out = coalescedWriter((text) => writes.push(text));
    out.write("last words\n");
    out.flush();
    expect(writes).toEqual(["last words\n"]);
    await new Promise((r) => setImmediate(r));
    out.flush();
    expect(writes).toEqual(["last words\n"]);
  });

  it("a logger over it loses no record and keeps each one a line of its own", async () => {
    let text = "";
    const out = coalescedWriter((t) => (text += t));
    const log = readableLogger(out.write);
    for (let i = 0; i < 50; i++) log.info("find", { verdict: "match", query: `q${i}`, top_tool: "t.x", latency_ms: 1, principal: "p" });
    await new Promise((r) => setImmediate(r));
    const lines = text.trimEnd().split("\n");
    expect(lines).toHaveLength(50);
    expect(lines[49]).toContain("q49");
  });
});

describe("readableLine's time", () => {
  it("is toISOString's time of day for any time, and throws as it does for an invalid one", () => {
    const edges = [0, -1, 999, 86_399_999, -62_167_219_200_000, -62_167_219_200_001, 253_402_300_799_999, 253_402_300_800_000, 8.64e15, -8.64e15];
    const check = (ms: number) => {
      expect(readableLine("info", "find", { verdict: "none" }, new Date(ms)).slice(0, 12)).toBe(new Date(ms).toISOString().slice(11, 23));
    };
    for (const ms of edges) check(ms);
    fc.assert(fc.property(fc.integer({ min: -8.64e15, max: 8.64e15 }), check));
    expect(() => readableLine("info", "find", {}, new Date(Number.NaN))).toThrow(RangeError);
  });
});
