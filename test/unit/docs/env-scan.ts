// Finds the environment variables TypeScript sources read, for the settings table's test. A text scan
// (TypeScript 7 has no compiler API): comments are blanked first so a name in prose is never a read.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export type Source = { file: string; text: string };
export type EnvUse = { name: string; file: string };
export type Scan = {
  /** Names read: `env.X`, `env["X"]`, destructuring, EnvSchema keys, `*_ENV`/`*_VARIABLES`/`*_CREDENTIALS` constants, TOOLBELT_/AWS_/CDK_ literals. */
  reads: EnvUse[];
  /** Names assigned into an environment (`environment.X = …`, `process.env.X ??= …`). */
  writes: EnvUse[];
  /** `env[expr]` whose key no constant in the sources resolves: the expression, to be explained by the test. */
  dynamic: { file: string; expr: string }[];
  /** Every `TOOLBELT_…` token, comments and messages included: each must name a documented setting. */
  mentions: EnvUse[];
};

const NAME = "[A-Z][A-Z0-9_]*";
/** A camelCase identifier ending in env / environment (env, process.env, childEnv), never a SCREAMING constant. */
const ENV_OBJ = String.raw`(?<![\w$])(?:[A-Za-z_$][\w$]*\??\.)*(?:[a-z][A-Za-z0-9]*)?(?:env|Env|environment|Environment)(?![\w$])`;
const PREFIXED = /^(?:TOOLBELT|AWS|CDK|DYNAMODB)_[A-Z0-9_]*[A-Z0-9]$/;

/** The source with comments and regex literals replaced by spaces (strings kept), and its plain string literals. */
export function lex(text: string): { code: string; literals: { value: string; at: number }[] } {
  const out = text.split("");
  const literals: { value: string; at: number }[] = [];
  let i = 0;
  let prev = ""; // last significant character outside comments, to tell a regex from a division
  const blank = (from: number, to: number) => {
    for (let k = from; k < to; k++) if (out[k] !== "\n") out[k] = " ";
  };
  while (i < text.length) {
    const c = text[i]!;
    const next = text[i + 1];
    if (c === "/" && next === "/") {
      const end = text.indexOf("\n", i);
      const stop = end < 0 ? text.length : end;
      blank(i, stop);
      i = stop;
    } else if (c === "/" && next === "*") {
      const end = text.indexOf("*/", i + 2);
      const stop = end < 0 ? text.length : end + 2;
      blank(i, stop);
      i = stop;
    } else if (c === '"' || c === "'" || c === "`") {
      let j = i + 1;
      let value = "";
      let plain = true; // a template with ${…} is not a constant
      while (j < text.length && text[j] !== c) {
        if (text[j] === "\\") {
          value += text[j + 1] ?? "";
          j += 2;
          continue;
        }
        if (c === "`" && text[j] === "$" && text[j + 1] === "{") {
          plain = false;
          let depth = 0;
          for (; j < text.length; j++) {
            if (text[j] === "{") depth++;
            else if (text[j] === "}" && --depth === 0) break;
          }
          j++;
          continue;
        }
        value += text[j];
        j++;
      }
      if (plain) literals.push({ value, at: i });
      i = j + 1;
      prev = c;
    } else if (c === "/" && (prev === "" || "(,=:[!&|?{};+-*%<>~^".includes(prev))) {
      // a regex literal, up to its closing slash (a class may hold one)
      let j = i + 1;
      let inClass = false;
      while (j < text.length && text[j] !== "\n") {
        if (text[j] === "\\") j++;
        else if (text[j] === "[") inClass = true;
        else if (text[j] === "]") inClass = false;
        else if (text[j] === "/" && !inClass) break;
        j++;
      }
      blank(i, j + 1); // a pattern's text is not code: /env.X/ reads nothing
      i = j + 1;
      prev = "/";
    } else {
      if (!/\s/.test(c)) prev = c;
      i++;
    }
  }
  return { code: out.join(""), literals };
}

/** `const X = "V"` and `X = { k: "V" }` constants of all sources, as `X` and `X.k` → V, for resolving `env[X]`. */
function constants(codes: string[]): Map<string, string> {
  const found = new Map<string, string>();
  for (const code of codes) {
    for (const m of code.matchAll(/\bconst\s+([A-Za-z_$][\w$]*)\s*(?::[^=]+)?=\s*(["'`])([^"'`$]*)\2/g)) found.set(m[1]!, m[3]!);
    for (const m of code.matchAll(/\bconst\s+([A-Za-z_$][\w$]*)\s*(?::[^=]+)?=\s*\{([^{}]*)\}/g)) {
      for (const p of m[2]!.matchAll(/([A-Za-z_$][\w$]*)\s*:\s*(["'`])([^"'`$]*)\2/g)) found.set(`${m[1]}.${p[1]}`, p[3]!);
    }
  }
  return found;
}

const ASSIGNED = /^\s*(?:\?\?|\|\||&&)?=(?![=>])/;

export function scanSources(sources: Source[]): Scan {
  const lexed = sources.map((s) => ({ ...s, ...lex(s.text) }));
  const consts = constants(lexed.map((s) => s.code));
  const scan: Scan = { reads: [], writes: [], dynamic: [], mentions: [] };
  for (const { file, text, code, literals } of lexed) {
    const use = (name: string, at: number, after: number) =>
      (ASSIGNED.test(code.slice(after, after + 5)) || /\bdelete\s+$/.test(code.slice(Math.max(0, at - 8), at)) ? scan.writes : scan.reads).push({ name, file });
    // env.X, env?.X
    for (const m of code.matchAll(new RegExp(`${ENV_OBJ}\\s*\\??\\.\\s*(${NAME})(?![\\w$])`, "g"))) use(m[1]!, m.index, m.index + m[0].length);
    // env["X"], env[X], env[`X_${i}`]
    for (const m of code.matchAll(new RegExp(`${ENV_OBJ}\\s*\\??\\.?\\[([^\\]]+)\\]`, "g"))) {
      const key = m[1]!.trim();
      const literal = /^(["'`])([^"'`$]*)\1$/.exec(key);
      const name = literal ? literal[2] : consts.get(key);
      if (name !== undefined) use(name, m.index, m.index + m[0].length);
      else if (!ASSIGNED.test(code.slice(m.index + m[0].length, m.index + m[0].length + 5))) scan.dynamic.push({ file, expr: m[0].replace(/\s+/g, " ") });
    }
    // const { X, Y: y, Z = "d" } = process.env
    for (const m of code.matchAll(new RegExp(`\\{([^{}]*)\\}\\s*=\\s*${ENV_OBJ}`, "g"))) {
      for (const part of m[1]!.split(",")) {
        const key = /^\s*(?:\.\.\.)?\s*([A-Za-z_$][\w$]*)/.exec(part)?.[1];
        if (key && /^[A-Z][A-Z0-9_]*$/.test(key)) scan.reads.push({ name: key, file });
      }
    }
    // "X" in env
    for (const m of code.matchAll(new RegExp(`(["'\`])(${NAME})\\1\\s+in\\s+${ENV_OBJ}`, "g"))) scan.reads.push({ name: m[2]!, file });
    // the keys of the gateway's EnvSchema
    const schema = /\bEnvSchema\s*=\s*z\.object\(\{([\s\S]*?)\n\}\)/.exec(code);
    if (schema) for (const m of schema[1]!.matchAll(new RegExp(`^\\s*(${NAME})\\s*:`, "gm"))) scan.reads.push({ name: m[1]!, file });
    // names held in constants that say they are environment names: SECRETS_ENV, EXEC_BASE_VARIABLES, GATEWAY_CREDENTIALS
    for (const m of code.matchAll(/\bconst\s+[A-Z][A-Z0-9_]*_(?:ENV|VARIABLES|CREDENTIALS)\b[^=]*=\s*([[{"'`])/g)) {
      const open = m[1]!;
      const start = m.index + m[0].length - 1;
      const end = open === "[" ? code.indexOf("]", start) : open === "{" ? code.indexOf("}", start) : code.indexOf(open, start + 1);
      for (const l of literals) if (l.at >= start && l.at <= end && /^[A-Z][A-Z0-9_]+$/.test(l.value)) scan.reads.push({ name: l.value, file });
    }
    // any string literal that is a prefixed variable name ("TOOLBELT_MODELS" passed along)
    for (const l of literals) if (PREFIXED.test(l.value)) scan.reads.push({ name: l.value, file });
    // (`TOOLBELT_PUBLIC/ALLOWED_ORIGINS` is prose shorthand for two names: a token before a slash is skipped)
    for (const m of text.matchAll(/\bTOOLBELT_[A-Z0-9_]*[A-Z0-9]\b(?!\/)/g)) scan.mentions.push({ name: m[0], file });
  }
  return scan;
}

/** Every non-test TypeScript file under the given folders. */
export function readSources(root: string, folders: string[]): Source[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
      const rel = join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== "node_modules") walk(rel);
      } else if (/\.(?:ts|mts)$/.test(e.name) && !/\.test\.ts$/.test(e.name) && !e.name.endsWith(".d.ts")) files.push(rel);
    }
  };
  for (const f of folders) walk(f);
  return files.sort().map((file) => ({ file, text: readFileSync(join(root, file), "utf8") }));
}

/** The backticked names in the first column of a markdown page's table rows. */
export function firstColumnNames(markdown: string): string[] {
  return [...markdown.matchAll(/^\|\s*`([^`]+)`\s*\|/gm)].map((m) => m[1]!);
}
