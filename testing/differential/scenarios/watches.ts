/**
 * Watches: events, initial events, and a watch from a compacted version.
 *
 * @module
 */

import { configMap, MERGE_PATCH, rvOf, type Scenario } from "./_common.ts";

/** The scenarios of this area, in order. */
export const WATCHES: readonly Scenario[] = [
  {
    name: "watch-events",
    async run(r): Promise<void> {
      const cms = r.path("configmaps");
      const list = await r.send("list", "GET", cms);
      const rv = rvOf(list.body);
      await r.watch("watch", `${cms}?watch=1&resourceVersion=${rv}`, {
        events: 3,
        during: async () => {
          await r.send("create", "POST", cms, { body: configMap("w") });
          await r.send("update", "PATCH", `${cms}/w`, {
            body: { data: { k: "v" } },
            contentType: MERGE_PATCH,
          });
          await r.send("delete", "DELETE", `${cms}/w`);
        },
      });
    },
  },
  {
    name: "watch-initial-events",
    async run(r): Promise<void> {
      const cms = r.path("configmaps");
      await r.send("create", "POST", cms, { body: configMap("i1") });
      await r.watch(
        "streaming list",
        `${cms}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`,
        { events: 2 },
      );
      await r.watch(
        "without bookmarks",
        `${cms}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan`,
        { events: 1 },
      );
      await r.watch(
        "without match",
        `${cms}?watch=1&sendInitialEvents=true&allowWatchBookmarks=true`,
        { events: 1 },
      );
    },
  },
  {
    name: "watch-gone",
    noWatchCache: true,
    async run(r, hooks): Promise<void> {
      const cms = r.path("configmaps");
      const made = await r.send("create", "POST", cms, {
        body: configMap("g"),
      });
      const old = rvOf(made.body);
      for (const v of ["1", "2", "3"]) {
        await r.send(`update ${v}`, "PATCH", `${cms}/g`, {
          body: { data: { v } },
          contentType: MERGE_PATCH,
          quiet: true,
        });
      }
      await hooks.compact();
      await r.watch(
        "watch from compacted",
        `${cms}?watch=1&resourceVersion=${old}`,
        {
          events: 1,
        },
      );
      await r.send(
        "list from compacted",
        "GET",
        `${cms}?resourceVersion=${old}&resourceVersionMatch=Exact`,
      );
    },
  },
];
