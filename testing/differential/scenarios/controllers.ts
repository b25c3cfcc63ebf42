/**
 * What the controllers do: garbage collection and namespace deletion.
 *
 * @module
 */

import { configMap, type Scenario, uidOf } from "./_common.ts";

/** The scenarios of this area, in order. */
export const CONTROLLERS: readonly Scenario[] = [
  {
    name: "garbage-collection",
    controllers: true,
    async run(r): Promise<void> {
      const cms = r.path("configmaps");
      const modes = ["Background", "Foreground", "Orphan"];
      for (const mode of modes) {
        const owner = await r.send(`create owner ${mode}`, "POST", cms, {
          body: configMap(`owner-${mode.toLowerCase()}`),
          quiet: true,
        });
        await r.send(`create child ${mode}`, "POST", cms, {
          body: configMap(`child-${mode.toLowerCase()}`, {}, {
            ownerReferences: [{
              apiVersion: "v1",
              kind: "ConfigMap",
              name: `owner-${mode.toLowerCase()}`,
              uid: uidOf(owner.body),
              blockOwnerDeletion: true,
            }],
          }),
          quiet: true,
        });
        await r.send(
          `delete owner ${mode}`,
          "DELETE",
          `${cms}/owner-${mode.toLowerCase()}`,
          {
            body: {
              kind: "DeleteOptions",
              apiVersion: "v1",
              propagationPolicy: mode,
            },
          },
        );
        const child = `${cms}/child-${mode.toLowerCase()}`;
        if (mode === "Orphan") {
          await r.until("the orphaned child", async () => {
            const { body } = await r.send("poll", "GET", child, {
              quiet: true,
            });
            const refs =
              (body as { metadata?: { ownerReferences?: unknown[] } })
                .metadata?.ownerReferences;
            return refs === undefined;
          });
          await r.send("orphan keeps the child", "GET", child);
        } else {
          await r.until(`the ${mode} child's deletion`, async () => {
            const { status } = await r.send("poll", "GET", child, {
              quiet: true,
            });
            return status === 404;
          });
          await r.until(`the ${mode} owner's deletion`, async () => {
            const { status } = await r.send(
              "poll",
              "GET",
              `${cms}/owner-${mode.toLowerCase()}`,
              { quiet: true },
            );
            return status === 404;
          });
          await r.send(`child gone ${mode}`, "GET", child);
        }
      }
    },
  },
  {
    name: "namespace-deletion",
    controllers: true,
    async run(r): Promise<void> {
      const name = `${r.namespace}-x`;
      await r.send("create", "POST", "/api/v1/namespaces", {
        body: { apiVersion: "v1", kind: "Namespace", metadata: { name } },
      });
      await r.send(
        "create inside",
        "POST",
        `/api/v1/namespaces/${name}/configmaps`,
        {
          body: configMap("inside"),
        },
      );
      await r.send("delete", "DELETE", `/api/v1/namespaces/${name}`);
      await r.send(
        "create while terminating",
        "POST",
        `/api/v1/namespaces/${name}/configmaps`,
        {
          body: configMap("late"),
        },
      );
      await r.until("the namespace's deletion", async () => {
        const { status } = await r.send(
          "poll",
          "GET",
          `/api/v1/namespaces/${name}`,
          { quiet: true },
        );
        return status === 404;
      });
      await r.send("gone", "GET", `/api/v1/namespaces/${name}`);
    },
  },
];
