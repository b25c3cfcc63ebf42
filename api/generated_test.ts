// The committed generated modules are what tools/api/generate.ts makes of
// the committed data (tools/api/data): regenerated in memory, no Go needed.
// After a new recording, `deno task api:generate` writes them again.
import assert from "node:assert/strict";
import { DATA, generate, readInputs } from "../tools/api/generate.ts";

const ROOT = new URL("../", import.meta.url);

async function committedModules(): Promise<string[]> {
  const found: string[] = [];
  for await (const group of Deno.readDir(new URL("api/", ROOT))) {
    if (!group.isDirectory) continue;
    for await (
      const version of Deno.readDir(new URL(`api/${group.name}/`, ROOT))
    ) {
      if (!version.isDirectory) continue;
      const folder = `api/${group.name}/${version.name}/`;
      for await (const file of Deno.readDir(new URL(folder, ROOT))) {
        found.push(`${folder}${file.name}`);
      }
    }
  }
  return found.sort();
}

Deno.test("api: the generated modules are the generator's output for the committed data", async () => {
  const files = generate(await readInputs(DATA));
  assert.deepEqual([...files.keys()].sort(), await committedModules());
  const stale: string[] = [];
  for (const [path, text] of files) {
    if (await Deno.readTextFile(new URL(path, ROOT)) !== text) stale.push(path);
  }
  assert.deepEqual(stale, [], "run `deno task api:generate`");
});

Deno.test("api: each discovered collection has one Resource, typed by its kind's schema", async () => {
  const files = generate(await readInputs(DATA));
  const apps = files.get("api/apps/v1/mod.ts") ?? "";
  assert.match(
    apps,
    /export const DEPLOYMENTS: BuiltinResource<Deployment> = \{/,
  );
  assert.match(apps, /subresources: \["scale", "status"\]/);
  const core = files.get("api/core/v1/mod.ts") ?? "";
  assert.match(
    core,
    /export const PODS: BuiltinResource<Pod> = \{\n {2}group: "",\n {2}version: "v1",/,
  );
  // One ObjectMeta, in meta/v1, imported by the others.
  const metas = [...files].filter(([, text]) =>
    text.includes("export interface ObjectMeta {")
  );
  assert.deepEqual(metas.map(([path]) => path), ["api/meta/v1/mod.ts"]);
  assert.match(apps, /metadata: metaV1\.ObjectMeta;/);
});
