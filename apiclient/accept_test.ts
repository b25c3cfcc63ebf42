import assert from "node:assert/strict";
import { Client } from "./mod.ts";

const META = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";

Deno.test("get and watch send the Accept header asked for, else application/json", async () => {
  const seen: (string | null)[] = [];
  const fetch = (input: RequestInfo | URL, init?: RequestInit) => {
    seen.push(new Request(input, init).headers.get("accept"));
    const body = new URL(String(input instanceof Request ? input.url : input))
        .searchParams.has("watch")
      ? ""
      : "{}";
    return Promise.resolve(new Response(body, { status: 200 }));
  };
  const client = new Client("http://api", { fetch });
  await client.get("/x", { accept: `${META}List,application/json` });
  await client.get("/x");
  await (await client.watch("/x?watch=1", { accept: META })).cancel();
  await (await client.watch("/x?watch=1")).cancel();
  assert.deepEqual(seen, [
    `${META}List,application/json`,
    "application/json",
    META,
    "application/json",
  ]);
});
