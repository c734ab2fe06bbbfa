// YAML parsing dominates the check (the `yaml` package reads ~3 MB/s; 10,000 tools are ~9 MB), so big
// registries are parsed on worker threads. Small ones never start a worker: start-up costs more than it saves.
import { availableParallelism } from "node:os";
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import type { Diagnostic } from "../registry/contract/diagnostics.js";
import { lazyLines, parseYaml, syntaxDiagnostic, treeProblem, YAML_OPTIONS, MAX_ALIAS_COUNT, type ParsedFile } from "./yaml.js";

/**
 * Bytes parsed on the main thread before a pool is worth starting. Workers parse with a cold JIT, so
 * below a few MB (about 2,000 tools) they cost more CPU than they save wall time.
 */
const POOL_THRESHOLD = 2 * 1024 * 1024;

type Reply = { id: number; value?: unknown; errors: { message: string; line: number; code?: string }[] };

// Plain JavaScript evaluated in the worker, so it needs no TypeScript loader; same options as yaml.ts.
const WORKER_SOURCE = (yamlPath: string) => `
const { parentPort } = require("node:worker_threads");
const { LineCounter, parseDocument } = require(${JSON.stringify(yamlPath)});
const options = ${JSON.stringify(YAML_OPTIONS)};
parentPort.on("message", ({ id, text }) => {
  try {
    const lineCounter = new LineCounter();
    const doc = parseDocument(text, { ...options, lineCounter });
    if (doc.errors.length > 0) {
      const errors = doc.errors.map((e) => {
        const line = (e.linePos && e.linePos[0] && e.linePos[0].line) || lineCounter.linePos(e.pos[0]).line;
        return { message: e.message.split("\\n")[0] + " (line " + line + ")", line, code: e.code };
      });
      parentPort.postMessage({ id, errors });
      return;
    }
    parentPort.postMessage({ id, value: doc.toJS({ maxAliasCount: ${MAX_ALIAS_COUNT} }), errors: [] });
  } catch (e) {
    parentPort.postMessage({ id, errors: [{ message: String((e && e.message) || e), line: 1 }] });
  }
});
`;

export class YamlParser {
  private bytes = 0;
  private workers: Worker[] = [];
  private next = 0;
  private seq = 0;
  private pending = new Map<number, (r: Reply) => void>();
  /** After a worker dies, everything left is parsed on the main thread. */
  private broken = false;

  constructor(
    private readonly maxWorkers: number = Math.min(4, availableParallelism()),
    private readonly threshold = POOL_THRESHOLD,
  ) {}

  async parse(text: string, file: string): Promise<ParsedFile> {
    this.bytes += text.length;
    if (this.broken || this.maxWorkers < 2 || (this.workers.length === 0 && this.bytes < this.threshold)) return parseYaml(text, file);
    const reply = await this.send(text);
    const diagnostics: Diagnostic[] = reply.errors.map((e) => syntaxDiagnostic(file, e.message, e.line, e.code));
    // Structured cloning keeps cycles, so the tree check runs here exactly as after a main-thread parse.
    const shape = diagnostics.length === 0 ? treeProblem(reply.value) : undefined;
    if (shape) diagnostics.push(syntaxDiagnostic(file, shape, 1));
    // Line numbers of later diagnostics come from a main-thread parse, done only for files that need one.
    return { value: diagnostics.length > 0 ? undefined : reply.value, diagnostics, lineOf: lazyLines(text) };
  }

  private send(text: string): Promise<Reply> {
    if (this.workers.length === 0) this.start();
    const id = this.seq++;
    const worker = this.workers[this.next++ % this.workers.length]!;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      worker.postMessage({ id, text });
    });
  }

  private start(): void {
    const source = WORKER_SOURCE(createRequire(import.meta.url).resolve("yaml"));
    for (let i = 0; i < this.maxWorkers; i++) {
      const w = new Worker(source, { eval: true });
      w.on("message", (r: Reply) => {
        this.pending.get(r.id)?.(r);
        this.pending.delete(r.id);
      });
      w.on("error", (e) => {
        // A dead worker must not leave a file unanswered: fail every pending parse as a syntax error.
        this.broken = true;
        for (const [id, resolve] of this.pending) resolve({ id, errors: [{ message: `parser failed: ${e.message}`, line: 1 }] });
        this.pending.clear();
      });
      this.workers.push(w);
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
    this.workers = [];
  }
}
