// The credential never reaches an error, whatever the server echoes: long
// tokens placed across every cut (the 2 KiB of an error body, the 200
// characters of a malformed answer or watch line, the 100 of a preview), and
// JSON-escaped spellings of any of its characters.
import assert from "node:assert/strict";
import { ApiError, Client, MalformedResponseError } from "./mod.ts";
import { failure, json, scripted } from "./_scripted_test_util.ts";
import { excerpt, redact } from "../_internal/redact.ts";

// A deterministic token of `length` characters from a JWT's alphabet (plus
// `/` and `+` when asked), with no 8-character run that repeats.
function token(length: number, extra = ""): string {
  const alphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_." + extra;
  let seed = 12345;
  let out = "";
  for (let i = 0; i < length; i++) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    out += alphabet[seed % alphabet.length];
  }
  return out;
}

// Every JSON escape undone, twice (a Status quoted inside a JSON string).
function unescaped(text: string): string {
  let out = text;
  for (let i = 0; i < 2; i++) {
    out = out.replace(
      /\\u([0-9a-fA-F]{4})/g,
      (_, hex) => String.fromCharCode(parseInt(hex, 16)),
    ).replace(/\\([\\/"])/g, "$1");
  }
  return out;
}

/** Asserts no run of 8 or more of the token's characters is in `texts`. */
function assertNoRun(secret: string, texts: (string | undefined)[]): void {
  for (const raw of texts) {
    if (raw === undefined) continue;
    for (const text of [raw, unescaped(raw)]) {
      for (let i = 0; i + 8 <= secret.length; i++) {
        const run = secret.slice(i, i + 8);
        assert.ok(
          !text.includes(run),
          `a run of the token at ${i} survived: ${run}`,
        );
      }
    }
  }
}

function shownOf(error: unknown): (string | undefined)[] {
  const e = error as ApiError;
  return [
    e.message,
    e.stack,
    e.text,
    e.statusObject === undefined ? undefined : JSON.stringify(e.statusObject),
  ];
}

async function errorOf(
  secret: string,
  answer: (auth: string) => Response,
): Promise<Error> {
  const { fetch } = scripted((request) =>
    answer(request.headers.get("authorization")!)
  );
  const client = new Client("http://api", {
    fetch,
    authorization: () => Promise.resolve(`Bearer ${secret}`),
  });
  return await client.get("/api").then(
    () => assert.fail("the request succeeded"),
    (e) => e as Error,
  );
}

// Offsets that put the token's start, end or middle on each side of 2,048.
const NEAR_2K = [1, 1100, 1166, 1167, 1200, 1600, 2000, 2040, 2047, 2048, 2049]
  .flatMap((at) => [at, at - 441]).filter((at) => at >= 0);

Deno.test("an 882-character token echoed across the 2 KiB cut of an error body leaves no 8-character run", async () => {
  const secret = token(882);
  for (const at of NEAR_2K) {
    for (const bare of [false, true]) {
      const error = await errorOf(secret, (auth) => {
        const echoed = bare ? auth.slice("Bearer ".length) : auth;
        return new Response("x".repeat(at) + echoed + "y".repeat(3000), {
          status: 401,
        });
      });
      assert.ok(error instanceof ApiError);
      assertNoRun(secret, shownOf(error));
      // The text is still the body's start, at most 2 KiB.
      assert.ok(
        (error as ApiError).text!.startsWith("x".repeat(Math.min(at, 100))),
      );
      assert.ok(
        new TextEncoder().encode((error as ApiError).text!).length <= 2048,
      );
    }
  }
});

Deno.test("a Status whose message JSON-escapes characters of the token (\\uXXXX, \\/) is redacted, whole or cut", async () => {
  const secret = token(882, "/+");
  assert.ok(secret.includes("/"));
  // Escape one character, every `/`, or every character.
  const spellings = [
    (s: string) =>
      s.slice(0, 5) + `\\u00${s.charCodeAt(5).toString(16)}` + s.slice(6),
    (s: string) => s.replaceAll("/", "\\/"),
    (s: string) =>
      [...s].map((c) =>
        `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`
      ).join(""),
    // Escaped twice: the message itself holds `\u00XX` text.
    (s: string) =>
      [...s].map((c) => `\\\\u00${c.charCodeAt(0).toString(16)}`).join(""),
  ];
  for (const spell of spellings) {
    for (const at of [0, 100, 1500, 2000, 2040, 3000]) {
      const error = await errorOf(secret, () => {
        const body = JSON.stringify(failure(401, "Unauthorized", "MARK"))
          .replace("MARK", "m".repeat(at) + spell(secret) + " end");
        return new Response(body, {
          status: 401,
          headers: { "content-type": "application/json" },
        });
      });
      assert.ok(error instanceof ApiError);
      assertNoRun(secret, shownOf(error));
    }
  }
});

Deno.test("a malformed 2xx answer with a long token across its 200-character excerpt leaves no run of it", async () => {
  const secret = token(882);
  for (const at of [0, 50, 150, 199, 200, 201, 400]) {
    const error = await errorOf(
      secret,
      (auth) => new Response("<" + "h".repeat(at) + auth + "x".repeat(2000)),
    );
    assert.ok(error instanceof MalformedResponseError);
    assertNoRun(secret, [error.message, error.stack]);
  }
});

Deno.test("a 2xx answer that is not an object quotes at most 100 characters, without the token", async () => {
  const secret = token(882);
  for (const at of [0, 60, 99, 100, 101]) {
    const error = await errorOf(
      secret,
      (auth) => json(200, ["p".repeat(at) + auth]),
    );
    assert.ok(error instanceof MalformedResponseError, String(error));
    assertNoRun(secret, [error.message]);
  }
});

Deno.test("a watch line with a long token across its 200-character excerpt leaves no run of it", async () => {
  const secret = token(882);
  const lines = [
    (pad: string, t: string) => `{"broken": "${pad}${t}"x\n`,
    (pad: string, t: string) => `{"type":"WHAT","e":"${pad}${t}"}\n`,
    (pad: string, t: string) => `{"type":"ADDED","object":{"e":"${pad}${t}"`,
  ];
  // Raw, and with one character JSON-escaped (today's watch path redacted
  // the raw form before its cut, but not an escaped one).
  const spellings = [
    (auth: string) => auth,
    (auth: string) =>
      auth.slice(0, 9) + `\\u00${auth.charCodeAt(9).toString(16)}` +
      auth.slice(10),
  ];
  for (
    const [line, spell] of lines.flatMap((l) =>
      spellings.map((s) => [l, s] as const)
    )
  ) {
    for (const at of [0, 150, 180, 199, 200, 250]) {
      const { fetch } = scripted((request) =>
        new Response(
          line("w".repeat(at), spell(request.headers.get("authorization")!)),
        )
      );
      const client = new Client("http://api", {
        fetch,
        authorization: () => Promise.resolve(`Bearer ${secret}`),
      });
      const stream = await client.watch("/api/v1/configmaps?watch=1");
      const error = await (async () => {
        for await (const _ of stream) { /* drain */ }
      })().catch((e) => e as Error);
      assert.ok(error instanceof MalformedResponseError, String(error));
      assertNoRun(secret, [error.message, error.stack]);
    }
  }
});

Deno.test("redact finds the header and the credential in every JSON spelling, and a cut text loses its unsure tail", () => {
  const auth = "Bearer abc/def+ghi";
  assert.equal(redact("x Bearer abc/def+ghi y", auth), "x [redacted] y");
  assert.equal(redact("x abc\\/def+ghi y", auth), "x [redacted] y");
  assert.equal(redact("x \\u0061bc/def\\u002Bghi", auth), "x [redacted]");
  assert.equal(redact("x \\u0061bc/def\\u002bghi", auth), "x [redacted]");
  // A broken escape is text, not a character.
  assert.equal(redact("\\u00zz abc", auth), "\\u00zz abc");
  // Escaped twice (a Status quoted in a JSON string).
  assert.equal(redact("x abc\\\\/def\\\\u002bghi", auth), "x [redacted]");
  assert.equal(
    redact(
      "\\u005cu0061" + "bc/def+ghi!",
      auth,
    ),
    "[redacted]!",
  );
  // Not complete: the last 36 characters per character of the header may be
  // the start of the credential (escaped twice), so they go.
  const long = "a".repeat(1000);
  assert.equal(redact(long, auth, false), "a".repeat(1000 - 36 * auth.length));
  // A short credential is only removed with its scheme.
  assert.equal(
    redact("Bearer short and short", "Bearer short"),
    "[redacted] and short",
  );
  assert.equal(excerpt("z".repeat(300), auth, 10), "zzzzzzzzzz…");
  assert.equal(excerpt("  hi  ", auth, 10), "hi");
});

Deno.test("redact of a 2 MB hostile text of escapes and near-matches is linear (under 2 s)", () => {
  const secret = token(882);
  const auth = `Bearer ${secret}`;
  // Near-matches: the token less its last character, escaped and not.
  const near = secret.slice(0, -1);
  const hostile = (near + "\\u0041" + near.replaceAll("A", "\\u0041")).repeat(
    600,
  );
  const started = Date.now();
  const out = redact(hostile, auth);
  assert.ok(Date.now() - started < 2000);
  assert.equal(out.length, hostile.length);
});

Deno.test("a watch's ERROR event whose Status echoes the token, raw or escaped, is delivered without it", async () => {
  const secret = token(882);
  const spellings = [
    (s: string) => s,
    (s: string) =>
      s.slice(0, 3) + `\\u00${s.charCodeAt(3).toString(16)}` + s.slice(4),
  ];
  for (const spell of spellings) {
    const status = JSON.stringify({
      kind: "Status",
      status: "Failure",
      code: 500,
      message: "MARK",
      details: { causes: [{ message: "MARK" }] },
    }).replaceAll("MARK", `echo Bearer ${spell(secret)} end`);
    const { fetch } = scripted(() =>
      new Response(`{"type":"ERROR","object":${status}}\n`)
    );
    const client = new Client("http://api", {
      fetch,
      authorization: () => Promise.resolve(`Bearer ${secret}`),
    });
    const events = [];
    for await (const event of await client.watch("/api/v1/pods?watch=1")) {
      events.push(event);
    }
    assert.equal(events.length, 1);
    assert.equal(events[0]!.type, "ERROR");
    const shown = JSON.stringify(events[0]!.object);
    assertNoRun(secret, [shown]);
    assert.match(shown, /echo \[redacted\] end/);
  }
});

Deno.test("a Warning header that echoes a long token across its 1 KiB cut is heard without it", async () => {
  const secret = token(882);
  for (const at of [0, 100, 200, 500, 1000, 1020, 1030]) {
    const heard: string[] = [];
    const { fetch } = scripted((request) =>
      json(200, {}, {
        warning: `299 - "${"w".repeat(at)}${
          request.headers.get("authorization")
        } end"`,
      })
    );
    const client = new Client("http://api", {
      fetch,
      authorization: () => Promise.resolve(`Bearer ${secret}`),
      onWarning: (text) => heard.push(text),
    });
    await client.get("/api");
    assert.equal(heard.length, 1);
    assertNoRun(secret, heard);
  }
});

Deno.test("a reason phrase that echoes the token is not in the error", async () => {
  const secret = token(300);
  const error = await errorOf(
    secret,
    (auth) => new Response("no", { status: 401, statusText: `Denied ${auth}` }),
  );
  assert.ok(error instanceof ApiError);
  assertNoRun(secret, shownOf(error));
  assert.match(error.message, /^GET \/api: 401 Denied \[redacted\]: no$/);
});
