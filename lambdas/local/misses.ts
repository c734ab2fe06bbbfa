// `npm run misses`: the most frequent tool-name misses, for the operator.
//   npm run misses                      ask the running gateway (GET /v1/admin/misses; local server by default)
//   npm run misses -- --name deploy     the latest events for one name
//   npm run misses -- --direct          read the DynamoDB table itself (TOOLBELT_TABLE, AWS credentials)
// Options: --limit N (20), --url URL (TOOLBELT_URL or http://127.0.0.1:$PORT), --key KEY (TOOLBELT_API_KEY or dev-key).
import { parseArgs } from "node:util";
import { loadConfig } from "../config.js";
import { clientFromConfig } from "../stores/dynamodb.js";
import type { Miss, MissSummary } from "../core/ports.js";
import { DynamoMissStore } from "../stores/misses.js";

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";

const USAGE = "usage: npm run misses -- [--name NAME] [--limit N] [--url URL] [--key KEY] [--direct] [--json]";

function args() {
  try {
    return parseArgs({
      options: {
        limit: { type: "string", default: "20" },
        name: { type: "string" },
        url: { type: "string" },
        key: { type: "string" },
        direct: { type: "boolean", default: false },
        json: { type: "boolean", default: false },
        help: { type: "boolean", default: false },
      },
    }).values;
  } catch (e) {
    // An unknown option is a usage error (exit 2), not a stack trace.
    console.error(`${(e as Error).message}\n${USAGE}`);
    process.exit(2);
  }
}

const values = args();
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}

const limit = Number(values.limit);
if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
  console.error("--limit must be an integer from 1 to 1000");
  process.exit(2);
}

type Answer = { misses?: MissSummary[]; events?: Miss[] };

async function viaApi(): Promise<Answer> {
  const base = (values.url ?? process.env.TOOLBELT_URL ?? `http://127.0.0.1:${process.env.PORT ?? 8787}`).replace(/\/+$/, "");
  const key = values.key ?? process.env.TOOLBELT_API_KEY ?? "dev-key";
  const query = new URLSearchParams({ limit: String(limit), ...(values.name ? { name: values.name } : {}) });
  let res: Response;
  try {
    res = await fetch(`${base}/v1/admin/misses?${query}`, { headers: { authorization: `Bearer ${key}` } });
  } catch (e) {
    throw new Error(`cannot reach ${base} (${(e as { cause?: { code?: string } }).cause?.code ?? (e as Error).message}): start it with npm start, or use --url or --direct`);
  }
  const body = (await res.json()) as Answer & { error?: { message: string } };
  if (!res.ok) throw new Error(`${base} answered ${res.status}: ${body.error?.message ?? "no message"}`);
  return body;
}

async function direct(): Promise<Answer> {
  const config = loadConfig(process.env);
  const client = clientFromConfig(config);
  try {
    const store = new DynamoMissStore(client, config.table);
    return values.name ? { events: await store.recent(values.name, limit) } : { misses: await store.top(limit) };
  } finally {
    client.destroy();
  }
}

function print(answer: Answer): void {
  if (values.json) {
    console.log(JSON.stringify(answer, null, 2));
    return;
  }
  if (answer.events) {
    if (!answer.events.length) console.log(`no misses recorded for ${values.name}`);
    for (const e of answer.events) console.log(`${e.at}  ${e.principal}  ${e.name}  ${e.outcome}${e.resolved_to ? ` → ${e.resolved_to}` : ""}`);
    return;
  }
  const misses = answer.misses ?? [];
  if (!misses.length) {
    console.log("no tool-name misses recorded");
    return;
  }
  const rows = misses.map((m) => [
    String(m.count),
    m.names.join(", "),
    m.last_outcome === "resolved" ? `→ ${m.resolved_to ?? "?"}` : m.last_outcome,
    m.last_principal,
    m.last_at,
  ]);
  const head = ["count", "names tried", "outcome", "last principal", "last at"];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  for (const r of [head, ...rows]) console.log(r.map((c, i) => (i === 0 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join("  ").trimEnd());
}

try {
  print(values.direct ? await direct() : await viaApi());
} catch (e) {
  console.error(`misses: ${(e as Error).message}`);
  process.exit(1);
}
