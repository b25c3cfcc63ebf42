import { Client, objectPath } from "../apiclient/mod.ts";
import { FakeApiServer } from "../testing/mod.ts";
import { freshGet } from "./requests.ts";
import { Versions } from "./versions.ts";

const KEYS = 10_000;
const keys = Array.from(
  { length: KEYS },
  (_, i) => `namespace-${i % 50}/object-${i}`,
);
// The memo names objects by ref, as every caller does.
const refs = Array.from({ length: KEYS }, (_, i) => ({
  version: "v1",
  resource: "configmaps",
  namespace: `namespace-${i % 50}`,
  name: `object-${i}`,
}));
const answer = (): Promise<string> => Promise.resolve("42");

// A memo that already holds every object, as after a full list.
const versions = new Versions();
for (const ref of refs) versions.note(ref, "42");

Deno.bench({
  name: "request alone (no memo)",
  group: "send, 10k keys one after another",
  baseline: true,
  async fn(): Promise<void> {
    for (let i = 0; i < KEYS; i++) await answer();
  },
});

Deno.bench({
  name: "versions.send",
  group: "send, 10k keys one after another",
  async fn(): Promise<void> {
    for (const ref of refs) await versions.send(ref, answer);
  },
});

Deno.bench({
  name: "request alone (no memo)",
  group: "send, 10k keys at once",
  baseline: true,
  async fn(): Promise<void> {
    await Promise.all(keys.map(() => answer()));
  },
});

Deno.bench({
  name: "versions.send",
  group: "send, 10k keys at once",
  async fn(): Promise<void> {
    await Promise.all(refs.map((ref) => versions.send(ref, answer)));
  },
});

Deno.bench({
  name: "versions.send, 10 writers per key",
  group: "send, 10k keys at once",
  async fn(): Promise<void> {
    const sends: Promise<void>[] = [];
    for (let writer = 0; writer < 10; writer++) {
      for (let i = 0; i < KEYS; i += 10) {
        sends.push(versions.send(refs[i]!, answer));
      }
    }
    await Promise.all(sends);
  },
});

const plain = new Map(keys.map((key) => [key, "42"]));

Deno.bench({
  name: "Map.get (no memo)",
  group: "current, 10k keys",
  baseline: true,
  fn(): void {
    let hits = 0;
    for (const key of keys) if (plain.get(key) === "42") hits++;
    if (hits !== KEYS) throw new Error("Unexpected miss");
  },
});

Deno.bench({
  name: "versions.current",
  group: "current, 10k keys",
  fn(): void {
    let hits = 0;
    for (const ref of refs) if (versions.current(ref, "42")) hits++;
    if (hits !== KEYS) throw new Error("Unexpected miss");
  },
});

// One real request through the client and the in-memory fake server, with
// and without the memo (which already holds 10k other keys).
const server = new FakeApiServer();
const client = new Client(server.url, { fetch: server.fetch });
const bench = {
  version: "v1",
  resource: "configmaps",
  namespace: "default",
  name: "bench",
};
const benchPath = objectPath(bench);
await client.create("/api/v1/namespaces/default/configmaps", {
  metadata: { name: "bench" },
});

Deno.bench({
  name: "client.get (no memo)",
  group: "one read through the client",
  baseline: true,
  async fn(): Promise<void> {
    await client.get(benchPath);
  },
});

Deno.bench({
  name: "freshGet (memo of 10k keys)",
  group: "one read through the client",
  async fn(): Promise<void> {
    await freshGet(client, bench, { versions });
  },
});
