// Pictures of one family's calls per bucket (the stats answer's `bucket_secs`: a minute for an hour,
// wider for longer windows): bars for calls (errors in red on top of them) and lines for latency p50 and
// p95. Plain SVG with a text summary for screen readers; no chart library.
import type { AuditStatsResponse } from "../../lambdas/contract/admin.js";
import { html } from "./html.js";
import { fmtMs } from "./ui.js";

type Bucket = AuditStatsResponse["families"][number]["buckets"][number];

const W = 480;
const H = 120;
const PAD = { left: 48, right: 8, top: 8, bottom: 20 };
const plotW = W - PAD.left - PAD.right;
const plotH = H - PAD.top - PAD.bottom;

/** A round number at or above `v`, for the axis. */
function ceiling(v: number): number {
  if (v <= 1) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  return ([1, 2, 5, 10].find((m) => m * p >= v) ?? 10) * p;
}

const minuteLabel = (iso: string) => iso.slice(11, 16);

function Axes({ max, buckets, ms }: { max: number; buckets: Bucket[]; ms?: boolean }) {
  const first = buckets[0];
  const last = buckets[buckets.length - 1];
  return html`<g class="axes">
    <line x1=${PAD.left} y1=${PAD.top} x2=${PAD.left} y2=${PAD.top + plotH} />
    <line x1=${PAD.left} y1=${PAD.top + plotH} x2=${PAD.left + plotW} y2=${PAD.top + plotH} />
    <text x=${PAD.left - 4} y=${PAD.top + 8} text-anchor="end">${ms ? (max >= 1000 ? `${max / 1000} s` : `${max} ms`) : max}</text>
    <text x=${PAD.left - 4} y=${PAD.top + plotH} text-anchor="end">0</text>
    ${first ? html`<text x=${PAD.left} y=${H - 4}>${minuteLabel(first.t)}</text>` : null}
    ${last ? html`<text x=${PAD.left + plotW} y=${H - 4} text-anchor="end">${minuteLabel(last.t)} UTC</text>` : null}
  </g>`;
}

/** How long a bucket is, in words: the answer's `bucket_secs` (a minute for an hour, wider for longer windows). */
const span = (secs: number) => (secs % 60 ? `${secs} seconds` : secs === 60 ? "minute" : `${secs / 60} minutes`);

export function CallsChart({ family, buckets, bucketSecs }: { family: string; buckets: Bucket[]; bucketSecs: number }) {
  const calls = buckets.reduce((n, b) => n + b.calls, 0);
  const errors = buckets.reduce((n, b) => n + b.errors, 0);
  const max = ceiling(Math.max(1, ...buckets.map((b) => b.calls)));
  const slot = plotW / Math.max(1, buckets.length);
  const y = (v: number) => PAD.top + plotH - (v / max) * plotH;
  const label = `${family}: ${calls} calls and ${errors} errors over ${Math.round((buckets.length * bucketSecs) / 60)} minutes, per ${span(bucketSecs)}`;
  return html`<svg class="chart" viewBox=${`0 0 ${W} ${H}`} width=${W} height=${H} role="img" aria-label=${label} data-chart="calls" data-family=${family}>
    <${Axes} max=${max} buckets=${buckets} />
    ${buckets.map((b, i) =>
      b.calls
        ? html`<g>
            <rect class="calls" x=${PAD.left + i * slot + 1} y=${y(b.calls)} width=${Math.max(1, slot - 2)} height=${(b.calls / max) * plotH} />
            ${b.errors ? html`<rect class="errors" x=${PAD.left + i * slot + 1} y=${y(b.errors)} width=${Math.max(1, slot - 2)} height=${(b.errors / max) * plotH} />` : null}
          </g>`
        : null,
    )}
  </svg>`;
}

export function LatencyChart({ family, buckets, bucketSecs }: { family: string; buckets: Bucket[]; bucketSecs: number }) {
  const used = buckets.map((b, i) => ({ b, i })).filter(({ b }) => b.calls > 0);
  const max = ceiling(Math.max(1, ...used.map(({ b }) => b.p95_ms)));
  const slot = plotW / Math.max(1, buckets.length);
  const x = (i: number) => PAD.left + i * slot + slot / 2;
  const y = (v: number) => PAD.top + plotH - (v / max) * plotH;
  const line = (key: "p50_ms" | "p95_ms") => used.map(({ b, i }) => `${x(i).toFixed(1)},${y(b[key]).toFixed(1)}`).join(" ");
  const worst = used.reduce((m, { b }) => Math.max(m, b.p95_ms), 0);
  const label = `${family}: latency per ${span(bucketSecs)}, p95 at most ${fmtMs(worst)}`;
  return html`<svg class="chart" viewBox=${`0 0 ${W} ${H}`} width=${W} height=${H} role="img" aria-label=${label} data-chart="latency" data-family=${family}>
    <${Axes} max=${max} buckets=${buckets} ms />
    <polyline class="p95" points=${line("p95_ms")} />
    <polyline class="p50" points=${line("p50_ms")} />
    ${used.map(({ b, i }) => html`<circle class="p95" cx=${x(i)} cy=${y(b.p95_ms)} r="2" /><circle class="p50" cx=${x(i)} cy=${y(b.p50_ms)} r="2" />`)}
  </svg>`;
}
