/**
 * Reads in other forms: metadata alone, and Tables.
 *
 * @module
 */

import { configMap, type Scenario } from "./_common.ts";

/** The scenarios of this area, in order. */
export const READS: readonly Scenario[] = [
  {
    name: "metadata-only",
    async run(r): Promise<void> {
      const cms = r.path("configmaps");
      await r.send("create", "POST", cms, {
        body: configMap("m", { big: "x" }, { labels: { a: "b" } }),
      });
      const accept =
        "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";
      await r.send("get", "GET", `${cms}/m`, { accept });
      await r.send("list", "GET", cms, {
        accept:
          "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1",
      });
      await r.send("not acceptable", "GET", `${cms}/m`, {
        accept: "application/json;as=Nonsense;g=meta.k8s.io;v=v1",
      });
    },
  },
  {
    name: "table",
    async run(r): Promise<void> {
      const cms = r.path("configmaps");
      await r.send("create", "POST", cms, { body: configMap("t", { a: "1" }) });
      const accept = "application/json;as=Table;g=meta.k8s.io;v=v1";
      await r.send("get", "GET", `${cms}/t`, { accept });
      await r.send("list", "GET", cms, { accept });
    },
  },
];
