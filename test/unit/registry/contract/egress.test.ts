// The URL template split the build and the http backend share: where the origin ends, where input may go.
import { describe, expect, it } from "vitest";
import { derivedEgress, originOf, splitUrlTemplate } from "../../../../registry/contract/egress.js";

describe("splitUrlTemplate", () => {
  it("ends the origin part at the first `/`, `\\`, `?` or `#` after the scheme, or of a `${VAR}` base URL", () => {
    expect(splitUrlTemplate("${BASE}/notes/{{input.id}}/tags?x={{input.x}}#f")).toEqual({
      origin: "${BASE}",
      path: "/notes/{{input.id}}/tags",
      tail: "?x={{input.x}}#f",
    });
    expect(splitUrlTemplate("https://api.example.com:8443?q=1").origin).toBe("https://api.example.com:8443");
    expect(splitUrlTemplate("http://h\\{{input.p}}").origin).toBe("http://h");
  });

  it("keeps an input placeholder that touches the origin inside it, so the build and the backend see it", () => {
    expect(["{{input.url}}", "https://{{input.host}}/x", "http://h:{{input.port}}/", "${BASE}{{input.p}}"].map((t) => splitUrlTemplate(t).origin)).toEqual([
      "{{input.url}}",
      "https://{{input.host}}",
      "http://h:{{input.port}}",
      "${BASE}{{input.p}}",
    ]);
    expect(derivedEgress("/relative")).toEqual([""]);
  });
});

describe("originOf", () => {
  it("normalises http(s) origins and drops a base URL's path", () => {
    expect(["HTTPS://API.example.com:443/v1", "http://127.0.0.1:8080/svc/", "http://[::1]:80"].map(originOf)).toEqual([
      "https://api.example.com",
      "http://127.0.0.1:8080",
      "http://[::1]",
    ]);
  });

  it("has no origin for other schemes, opaque URLs or text", () => {
    expect(["file:///etc/passwd", "data:text/plain,x", "ftp://h", "not a url", ""].map(originOf)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });
});
