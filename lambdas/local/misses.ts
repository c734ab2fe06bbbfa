// `npm run misses`: the most frequent tool-name misses (or find misses), for the operator.
//   npm run misses                      ask the running gateway (GET /v1/admin/misses; local server by default)
//   npm run misses -- --name deploy     the latest events for one name
//   npm run misses -- --find            find queries answered none, or whose best tool scored below the default min_score
//   npm run misses -- --direct          read the DynamoDB table itself (TOOLBELT_TABLE, AWS credentials)
// Options: --limit N (20), --url URL (TOOLBELT_URL or http://127.0.0.1:$PORT), --key KEY (TOOLBELT_API_KEY, else the key npm start keeps in .toolbelt/local-key).
import { resolve } from "node:path";
import { readLocalKey } from "./local-key.js";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { ErrorBody } from "../contract/errors.js";
import { MISSES_LIMITS, MissesQuery, MissesResponse } from "../contract/misses.js";
import { loadConfig } from "../config.js";
import { describeIssues } from "../core/issues.js";
import { clientFromConfig } from "../stores/dynamodb.js";
import { DynamoMissStore, FIND_MISSES } from "../stores/misses.js";

const ROOT = resolve(import.meta.dirname, "../..");
const USAGE = "usage: npm run misses -- [--find] [--name NAME] [--limit N] [--url URL] [--key KEY] [--direct] [--json]";

type Io = { out: (s: string) => void; err: (s: string) => void; env: NodeJS.ProcessEnv };
type Answer = MissesResponse;
type Options = { limit: number; name?: string; url?: string; key?: string; direct: boolean; json: boolean; find: boolean };

async function viaApi(o: Options, env: NodeJS.ProcessEnv): Promise<Answer> {
  const base = (o.url ?? env.TOOLBELT_URL ?? `http://127.0.0.1:${env.PORT ?? 8787}`).replace(/\/+$/, "");
  const key = o.key ?? env.TOOLBELT_API_KEY ?? readLocalKey(ROOT);
  if (!key) throw new Error("no key: pass --key, set TOOLBELT_API_KEY, or start the gateway once with npm start (it keeps its key in .toolbelt/local-key)");
  const query = new URLSearchParams({ limit: String(o.limit), ...(o.name ? { name: o.name } : {}), ...(o.find ? { kind: "find" } : {}) });
  let res: Response;
  try {
    res = await fetch(`${base}/v1/admin/misses?${query}`, { headers: { authorization: `Bearer ${key}` } });
  } catch (e) {
    throw new Error(
      `cannot reach ${base} (${(e as { cause?: { code?: string } }).cause?.code ?? (e as Error).message}): start it with npm start, or use --url or --direct`,
    );
  }
  const body: unknown = await res.json();
  if (!res.ok) {
    const error = ErrorBody.safeParse(body);
    throw new Error(`${base} answered ${res.status}: ${error.success ? error.data.error.message : "no message"}`);
  }
  const answer = MissesResponse.safeParse(body);
  if (!answer.success) throw new Error(`${base} answered 200 with something other than the miss log: ${describeIssues(answer.error.issues)}`);
  return answer.data;
}

async function direct(o: Options, env: NodeJS.ProcessEnv): Promise<Answer> {
  const config = loadConfig(env);
  const client = clientFromConfig(config);
  try {
    const store = o.find ? new DynamoMissStore(client, config.table, FIND_MISSES) : new DynamoMissStore(client, config.table);
    return o.name ? { name: o.name, events: await store.recent(o.name, o.limit) } : { misses: await store.top(o.limit) };
  } finally {
    client.destroy();
  }
}

// Callers chose these strings: control and format characters are shown escaped, never sent to the terminal.
const printable = (s: string) => s.replace(/[\p{Cc}\p{Cf}]/gu, (ch) => `\\u${ch.codePointAt(0)!.toString(16).padStart(4, "0")}`);

const outcomeOf = (m: { last_outcome?: string; outcome?: string; resolved_to?: string; best_tool?: string; best_score?: number }) => {
  const outcome = m.last_outcome ?? m.outcome ?? "";
  if (outcome === "resolved") return `→ ${m.resolved_to ?? "?"}`;
  return m.best_tool ? `${outcome} (best ${m.best_tool} ${m.best_score ?? "?"})` : outcome;
};

function table(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  return [head, ...rows]
    .map((r) =>
      r
        .map((c, i) => (i === 0 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

function format(answer: Answer, o: Options): string {
  if (o.json) return JSON.stringify(answer, null, 2);
  if ("events" in answer) {
    if (!answer.events.length) return `no misses recorded for ${printable(o.name ?? "")}`;
    return answer.events.map((e) => `${e.at}  ${printable(e.principal)}  ${printable(e.name)}  ${outcomeOf(e)}`).join("\n");
  }
  const { misses } = answer;
  if (!misses.length) return o.find ? "no find misses recorded" : "no tool-name misses recorded";
  const rows = misses.map((m) => [String(m.count), printable(m.names.join(o.find ? " | " : ", ")), outcomeOf(m), printable(m.last_principal), m.last_at]);
  return table(["count", o.find ? "queries" : "names tried", "outcome", "last principal", "last at"], rows);
}

/** The CLI without the process: exit code 0, 1 (the gateway or table said no) or 2 (usage). */
export async function run(argv: string[], io: Io): Promise<number> {
  let values;
  try {
    values = parseArgs({
      args: argv,
      options: {
        limit: { type: "string", default: String(MISSES_LIMITS.default) },
        name: { type: "string" },
        url: { type: "string" },
        key: { type: "string" },
        direct: { type: "boolean", default: false },
        json: { type: "boolean", default: false },
        find: { type: "boolean", default: false },
        help: { type: "boolean", default: false },
      },
    }).values;
  } catch (e) {
    // An unknown option is a usage error (exit 2), not a stack trace.
    io.err(`${(e as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (values.help) {
    io.out(`${USAGE}\n`);
    return 0;
  }
  // The same rule as the route's `limit` parameter.
  const limit = MissesQuery.shape.limit.safeParse(values.limit);
  if (!limit.success) {
    io.err(`--limit must be an integer from 1 to ${MISSES_LIMITS.max}\n`);
    return 2;
  }
  const o: Options = { ...values, limit: limit.data };
  try {
    io.out(`${format(o.direct ? await direct(o, io.env) : await viaApi(o, io.env), o)}\n`);
    return 0;
  } catch (e) {
    io.err(`misses: ${(e as Error).message}\n`);
    return 1;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
  process.exitCode = await run(process.argv.slice(2), { out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s), env: process.env });
}
