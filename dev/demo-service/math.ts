// math: a small expression parser (no eval), statistics, percentages, factors, gcd and lcm.
import type { Hono } from "hono";
import { bad, DemoError, int, jsonBody, num, numbers, str, tidy } from "./common.js";

const FUNCS: Record<string, (...a: number[]) => number> = {
  sqrt: Math.sqrt,
  cbrt: Math.cbrt,
  abs: Math.abs,
  sin: Math.sin,
  cos: Math.cos,
  tan: Math.tan,
  asin: Math.asin,
  acos: Math.acos,
  atan: Math.atan,
  ln: Math.log,
  log: Math.log10,
  log2: Math.log2,
  exp: Math.exp,
  round: Math.round,
  floor: Math.floor,
  ceil: Math.ceil,
  min: Math.min,
  max: Math.max,
  pow: Math.pow,
};
const CONSTS: Record<string, number> = { pi: Math.PI, e: Math.E, tau: 2 * Math.PI };

function evaluate(src: string): number {
  const tokens = src.match(/\d+(?:\.\d+)?(?:e[+-]?\d+)?|\.\d+|[A-Za-z_][A-Za-z0-9_]*|\*\*|[-+*/%^(),]|\S/g) ?? [];
  let pos = 0;
  const peek = () => tokens[pos];
  const take = (t?: string) => {
    const tok = tokens[pos];
    if (t !== undefined && tok !== t)
      throw bad(`expected \`${t}\` at token ${pos + 1} of the expression, found ${tok === undefined ? "the end" : `\`${tok}\``}`);
    pos++;
    return tok;
  };
  // expr := term (('+'|'-') term)*; term := unary (('*'|'/'|'%') unary)*; unary := '-' unary | power; power := atom ('^' unary)?
  const expr = (): number => {
    let v = term();
    while (peek() === "+" || peek() === "-") v = take() === "+" ? v + term() : v - term();
    return v;
  };
  const term = (): number => {
    let v = unary();
    while (peek() === "*" || peek() === "/" || peek() === "%") {
      const op = take();
      const r = unary();
      v = op === "*" ? v * r : op === "/" ? v / r : v % r;
    }
    return v;
  };
  const unary = (): number => {
    if (peek() === "-") {
      take();
      return -unary();
    }
    if (peek() === "+") {
      take();
      return unary();
    }
    return power();
  };
  const power = (): number => {
    const base = atom();
    if (peek() === "^" || peek() === "**") {
      take();
      return Math.pow(base, unary());
    }
    return base;
  };
  const atom = (): number => {
    const tok = take();
    if (tok === undefined) throw bad("the expression ends too early");
    if (tok === "(") {
      const v = expr();
      take(")");
      return v;
    }
    if (/^[\d.]/.test(tok)) return Number(tok);
    if (/^[A-Za-z_]/.test(tok)) {
      const name = tok.toLowerCase();
      if (peek() === "(") {
        const fn = Object.hasOwn(FUNCS, name) ? FUNCS[name] : undefined; // "__proto__(1)" is unknown, not Object.prototype
        if (!fn) throw bad(`unknown function \`${tok}\`; known: ${Object.keys(FUNCS).join(", ")}`);
        take("(");
        const args = [expr()];
        while (peek() === ",") {
          take();
          args.push(expr());
        }
        take(")");
        return fn(...args);
      }
      const c = Object.hasOwn(CONSTS, name) ? CONSTS[name] : undefined;
      if (c === undefined) throw bad(`unknown name \`${tok}\`; constants: ${Object.keys(CONSTS).join(", ")}`);
      return c;
    }
    throw bad(`unexpected \`${tok}\` in the expression`);
  };
  if (tokens.length === 0) throw bad("the expression is empty");
  const v = expr();
  if (pos < tokens.length) throw bad(`unexpected \`${tokens[pos]}\` at token ${pos + 1} of the expression`);
  if (!Number.isFinite(v)) throw new DemoError(422, "NOT_FINITE", "the expression has no finite value (division by zero or out of range)");
  return v;
}

function statistics(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  const sum = sorted.reduce((a, b) => a + b, 0);
  const mean = sum / n;
  const mid = Math.floor(n / 2);
  const median = n % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  const counts = new Map<number, number>();
  for (const v of sorted) counts.set(v, (counts.get(v) ?? 0) + 1);
  const top = Math.max(...counts.values());
  const mode = top > 1 ? [...counts].filter(([, c]) => c === top).map(([v]) => v) : [];
  const variance = n > 1 ? sorted.reduce((a, v) => a + (v - mean) ** 2, 0) / (n - 1) : 0;
  return {
    count: n,
    sum: tidy(sum),
    mean: tidy(mean),
    median,
    mode,
    min: sorted[0]!,
    max: sorted[n - 1]!,
    range: tidy(sorted[n - 1]! - sorted[0]!),
    variance: tidy(variance),
    stdev: tidy(Math.sqrt(variance)),
  };
}

function factorize(n: number): number[] {
  const out: number[] = [];
  for (let p = 2; p * p <= n; p++)
    while (n % p === 0) {
      out.push(p);
      n /= p;
    }
  if (n > 1) out.push(n);
  return out;
}
const gcd = (a: number, b: number): number => (b === 0 ? Math.abs(a) : gcd(b, a % b));

export function mathRoutes(app: Hono): void {
  app.post("/math/evaluate", async (c) => {
    const expression = str((await jsonBody(c)).expression, "expression");
    if (expression.length > 1000) throw bad("the expression is over 1000 characters");
    return c.json({ expression, result: tidy(evaluate(expression)) });
  });
  app.post("/math/stats", async (c) => c.json(statistics(numbers((await jsonBody(c)).values, "values"))));
  app.get("/math/percentage", (c) => {
    const value = num(c.req.query("value"), "value");
    const of = num(c.req.query("of"), "of");
    if (of === 0) throw new DemoError(422, "NOT_FINITE", "`of` is zero: a percentage of zero is undefined");
    return c.json({ value, of, percent: tidy((value / of) * 100) });
  });
  app.get("/math/percent_change", (c) => {
    const from = num(c.req.query("from"), "from");
    const to = num(c.req.query("to"), "to");
    if (from === 0) throw new DemoError(422, "NOT_FINITE", "`from` is zero: a change from zero has no percentage");
    return c.json({ from, to, change: tidy(to - from), percent_change: tidy(((to - from) / Math.abs(from)) * 100) });
  });
  app.get("/math/factorize", (c) => {
    const n = int(c.req.query("n"), "n", 2, Number.MAX_SAFE_INTEGER);
    if (n > 1e15) throw bad("`n` must be at most 10^15");
    const factors = factorize(n);
    return c.json({ n, factors, is_prime: factors.length === 1 });
  });
  app.post("/math/gcd", async (c) => {
    const values = numbers((await jsonBody(c)).values, "values").map((v, i) => int(v, `values[${i}]`, 1, Number.MAX_SAFE_INTEGER));
    if (values.length < 2) throw bad("`values` needs at least two integers");
    const g = values.reduce(gcd);
    const l = values.reduce((a, b) => (a / gcd(a, b)) * b);
    return c.json({ values, gcd: g, lcm: l });
  });
}
