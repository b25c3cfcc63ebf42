// Every generated schema, gathered into CRDs of at most ~500 KB of schema
// each (etcd takes requests up to 1.5 MB): for the structural checks of
// api/schemas_test.ts and the real server's in testing/real/api_test.ts.
import { defineResource, type ResourceDefinition } from "../resource/mod.ts";
import type { Schema } from "../resource/mod.ts";

/** The folders of the generated modules (`core/v1`, …). */
export async function moduleNames(): Promise<string[]> {
  const root = new URL("./", import.meta.url);
  const found: string[] = [];
  for await (const group of Deno.readDir(root)) {
    if (!group.isDirectory) continue;
    for await (const version of Deno.readDir(new URL(`${group.name}/`, root))) {
      if (version.isDirectory) found.push(`${group.name}/${version.name}`);
    }
  }
  return found.sort();
}

/**
 * One definition per chunk of every module's schemas, each schema a field
 * of `spec` (`coreV1PodSpec`); defineResource checks each as the API server
 * checks a CRD, and throws on the first that fails.
 */
export async function everySchema(
  group = "all.example.com",
): Promise<{ count: number; definitions: ResourceDefinition<never>[] }> {
  const chunks: Record<string, Schema>[] = [{}];
  let size = 0;
  let count = 0;
  for (const module of await moduleNames()) {
    const schemas = await import(`./${module}/schemas.ts`) as Record<
      string,
      Schema
    >;
    for (const [name, schema] of Object.entries(schemas)) {
      const length = JSON.stringify(schema).length;
      if (size + length > 500_000 && size > 0) {
        chunks.push({});
        size = 0;
      }
      const field = `${module.replace(/\W/g, "_")}_${name}`.toLowerCase()
        .replace(/_(\w)/g, (_, c: string) => c.toUpperCase());
      chunks.at(-1)![field] = schema;
      size += length;
      count++;
    }
  }
  const definitions = chunks.map((properties, i) =>
    defineResource({
      group,
      version: "v1",
      kind: `All${i}`,
      plural: `all${i}s`,
      scope: "Namespaced",
      schema: {
        type: "object",
        properties: { spec: { type: "object", properties } },
      },
    }) as unknown as ResourceDefinition<never>
  );
  return { count, definitions };
}
