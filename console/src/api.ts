// The gateway's data routes as the page calls them. The key lives in this closure only (page memory):
// never a cookie or storage. Addresses are relative to the page, so a stage prefix (/prod/console) works.

/** An answer that was not 2xx, with the gateway's error code and message (or the network's failure: status 0). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export type Answer<T> = { status: number; data: T };

export type Api = {
  /** Whether a key was given (an empty one sends no Authorization header: the gateway answers 401). */
  readonly hasKey: boolean;
  get<T>(path: string, query?: Record<string, string | number | undefined>): Promise<T>;
  post<T>(path: string, body: unknown): Promise<T>;
  /** The answer whatever its status, when its body is JSON (GET /v1/health answers 503 with a body). */
  answer<T>(path: string): Promise<Answer<T>>;
};

type ErrorBody = { error?: { code?: string; message?: string } };

export function createApi(key: string): Api {
  async function send(method: "GET" | "POST", path: string, body?: unknown): Promise<{ res: Response; data: unknown; text: string }> {
    const headers: Record<string, string> = { accept: "application/json" };
    if (key) headers.authorization = `Bearer ${key}`;
    if (body !== undefined) headers["content-type"] = "application/json";
    let res: Response;
    try {
      res = await fetch(new URL(path, document.baseURI), {
        method,
        headers,
        credentials: "omit",
        cache: "no-store",
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
    } catch (err) {
      throw new ApiError(0, "NETWORK", `the gateway did not answer: ${(err as Error).message}`);
    }
    const text = await res.text();
    let data: unknown;
    try {
      data = text ? JSON.parse(text) : undefined;
    } catch {
      data = undefined;
    }
    return { res, data, text };
  }

  function checked<T>({ res, data, text }: { res: Response; data: unknown; text: string }): T {
    if (res.ok) return data as T;
    const error = (data as ErrorBody | undefined)?.error;
    throw new ApiError(res.status, error?.code ?? `HTTP_${res.status}`, error?.message ?? (text.slice(0, 200) || res.statusText));
  }

  return {
    hasKey: key !== "",
    async get<T>(path: string, query: Record<string, string | number | undefined> = {}) {
      const params = new URLSearchParams();
      for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== "") params.set(k, String(v));
      const qs = params.toString();
      return checked<T>(await send("GET", qs ? `${path}?${qs}` : path));
    },
    async post<T>(path: string, body: unknown) {
      return checked<T>(await send("POST", path, body));
    },
    async answer<T>(path: string) {
      const sent = await send("GET", path);
      if (sent.data === undefined) checked(sent);
      return { status: sent.res.status, data: sent.data as T };
    },
  };
}
