/**
 * Objects: create, read, replace, patch dialects, names, paging and selectors.
 *
 * @module
 */

import {
  configMap,
  JSON_PATCH,
  MERGE_PATCH,
  rvOf,
  type Scenario,
  STRATEGIC_PATCH,
} from "./_common.ts";

/** The scenarios of this area, in order. */
export const OBJECTS: readonly Scenario[] = [
  {
    name: "configmap-crud",
    async run(r): Promise<void> {
      const cms = r.path("configmaps");
      const made = await r.send("create", "POST", cms, {
        body: configMap("a", { k: "v" }),
      });
      await r.send("get", "GET", `${cms}/a`);
      await r.send("create again", "POST", cms, { body: configMap("a") });
      await r.send("get missing", "GET", `${cms}/missing`);
      const stale = configMap("a", { k: "w" }, {
        resourceVersion: String(Number(rvOf(made.body)) - 1),
      });
      await r.send("replace stale", "PUT", `${cms}/a`, { body: stale });
      await r.send("replace current", "PUT", `${cms}/a`, {
        body: configMap("a", { k: "w" }, { resourceVersion: rvOf(made.body) }),
      });
      await r.send("replace without version", "PUT", `${cms}/a`, {
        body: configMap("a", { k: "x" }),
      });
      await r.send("replace wrong name", "PUT", `${cms}/a`, {
        body: configMap("b"),
      });
      await r.send("replace missing", "PUT", `${cms}/missing`, {
        body: configMap("missing"),
      });
      await r.send("delete", "DELETE", `${cms}/a`);
      await r.send("delete again", "DELETE", `${cms}/a`);
    },
  },
  {
    name: "patch-dialects",
    async run(r): Promise<void> {
      const cms = r.path("configmaps");
      await r.send("create", "POST", cms, {
        body: configMap("p", { a: "1" }, { labels: { x: "1" } }),
      });
      await r.send("merge", "PATCH", `${cms}/p`, {
        body: { data: { b: "2" }, metadata: { labels: { x: null } } },
        contentType: MERGE_PATCH,
      });
      await r.send("strategic", "PATCH", `${cms}/p`, {
        body: { metadata: { labels: { y: "2" } } },
        contentType: STRATEGIC_PATCH,
      });
      await r.send("json", "PATCH", `${cms}/p`, {
        body: [
          { op: "add", path: "/data/c", value: "3" },
          { op: "replace", path: "/data/a", value: "10" },
        ],
        contentType: JSON_PATCH,
      });
      await r.send("json test fails", "PATCH", `${cms}/p`, {
        body: [{ op: "test", path: "/data/a", value: "nope" }],
        contentType: JSON_PATCH,
      });
      await r.send("json remove missing", "PATCH", `${cms}/p`, {
        body: [{ op: "remove", path: "/data/zzz" }],
        contentType: JSON_PATCH,
      });
      await r.send("malformed body", "PATCH", `${cms}/p`, {
        body: "{not json",
        contentType: MERGE_PATCH,
      });
      await r.send("missing object", "PATCH", `${cms}/missing`, {
        body: { data: { a: "1" } },
        contentType: MERGE_PATCH,
      });
      await r.send("stale version in merge", "PATCH", `${cms}/p`, {
        body: { metadata: { resourceVersion: "1" }, data: { d: "4" } },
        contentType: MERGE_PATCH,
      });
      await r.send("unsupported type", "PATCH", `${cms}/p`, {
        body: { data: {} },
        contentType: "application/xml",
      });
    },
  },
  {
    name: "names",
    generated: ["gen-"],
    async run(r): Promise<void> {
      const cms = r.path("configmaps");
      await r.send("invalid name", "POST", cms, {
        body: configMap("Bad_Name"),
      });
      await r.send("name too long", "POST", cms, {
        body: configMap("x".repeat(254)),
      });
      await r.send("no name", "POST", cms, { body: configMap("") });
      await r.send("generated", "POST", cms, {
        body: {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { generateName: "gen-" },
        },
      });
      await r.send("namespace mismatch", "POST", cms, {
        body: configMap("m", {}, { namespace: "elsewhere" }),
      });
      await r.send("bad label", "POST", cms, {
        body: configMap("l", {}, { labels: { "a b": "c" } }),
      });
      await r.send("bad data key", "POST", cms, {
        body: configMap("d", { "a/b": "c" }),
      });
      await r.send("wrong kind", "POST", cms, {
        body: { apiVersion: "v1", kind: "Secret", metadata: { name: "k" } },
      });
    },
  },
  {
    name: "list-paging",
    async run(r): Promise<void> {
      const cms = r.path("configmaps");
      for (const name of ["c1", "c2", "c3", "c4", "c5"]) {
        await r.send(`create ${name}`, "POST", cms, {
          body: configMap(name),
          quiet: true,
        });
      }
      const first = await r.send("page 1", "GET", `${cms}?limit=2`);
      const token = (first.body as { metadata: { continue?: string } })
        .metadata.continue ?? "";
      const second = await r.send(
        "page 2",
        "GET",
        `${cms}?limit=2&continue=${encodeURIComponent(token)}`,
      );
      const next = (second.body as { metadata: { continue?: string } })
        .metadata.continue ?? "";
      await r.send(
        "page 3",
        "GET",
        `${cms}?limit=2&continue=${encodeURIComponent(next)}`,
      );
      await r.send("bad token", "GET", `${cms}?limit=2&continue=garbage`);
      await r.send("limit 0 is no limit", "GET", `${cms}?limit=0`);
    },
  },
  {
    name: "selectors",
    async run(r): Promise<void> {
      const cms = r.path("configmaps");
      const labelled: [string, Record<string, string>][] = [
        ["s1", { app: "web", tier: "front" }],
        ["s2", { app: "web", tier: "back" }],
        ["s3", { app: "db" }],
      ];
      for (const [name, labels] of labelled) {
        await r.send(`create ${name}`, "POST", cms, {
          body: configMap(name, {}, { labels }),
          quiet: true,
        });
      }
      const names = async (step: string, query: string): Promise<void> => {
        await r.send(step, "GET", `${cms}?${query}`);
      };
      await names("equality", "labelSelector=app%3Dweb");
      await names("inequality", "labelSelector=app!%3Dweb");
      await names("set", "labelSelector=tier%20in%20(front%2Cmiddle)");
      await names("exists", "labelSelector=tier");
      await names("not exists", "labelSelector=!tier");
      await names("invalid label selector", "labelSelector=a%3D%3D%3Db");
      await names("field name", "fieldSelector=metadata.name%3Ds3");
      await names(
        "field namespace",
        `fieldSelector=metadata.namespace%3D${r.namespace}`,
      );
      await names("unsupported field", "fieldSelector=data.k%3Dv");
      await names("invalid field selector", "fieldSelector=metadata.name");
    },
  },
];
