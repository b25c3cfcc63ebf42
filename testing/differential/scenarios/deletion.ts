/**
 * Deletion: finalizers and preconditions.
 *
 * @module
 */

import { configMap, MERGE_PATCH, type Scenario, uidOf } from "./_common.ts";

/** The scenarios of this area, in order. */
export const DELETION: readonly Scenario[] = [
  {
    name: "finalizers",
    async run(r): Promise<void> {
      const cms = r.path("configmaps");
      await r.send("create", "POST", cms, {
        body: configMap("f", {}, { finalizers: ["example.com/hold"] }),
      });
      await r.send("delete", "DELETE", `${cms}/f`);
      await r.send("get while deleting", "GET", `${cms}/f`);
      await r.send("add finalizer while deleting", "PATCH", `${cms}/f`, {
        body: {
          metadata: { finalizers: ["example.com/hold", "example.com/more"] },
        },
        contentType: MERGE_PATCH,
      });
      await r.send("release", "PATCH", `${cms}/f`, {
        body: { metadata: { finalizers: null } },
        contentType: MERGE_PATCH,
      });
      await r.send("gone", "GET", `${cms}/f`);
    },
  },
  {
    name: "delete-preconditions",
    async run(r): Promise<void> {
      const cms = r.path("configmaps");
      const made = await r.send("create", "POST", cms, {
        body: configMap("d"),
      });
      await r.send("wrong uid", "DELETE", `${cms}/d`, {
        body: {
          kind: "DeleteOptions",
          apiVersion: "v1",
          preconditions: { uid: "00000000-0000-0000-0000-000000000000" },
        },
      });
      await r.send("wrong version", "DELETE", `${cms}/d`, {
        body: {
          kind: "DeleteOptions",
          apiVersion: "v1",
          preconditions: { resourceVersion: "1" },
        },
      });
      await r.send("right uid", "DELETE", `${cms}/d`, {
        body: {
          kind: "DeleteOptions",
          apiVersion: "v1",
          preconditions: { uid: uidOf(made.body) },
        },
      });
    },
  },
];
