/**
 * Custom resources served from a CustomResourceDefinition.
 *
 * @module
 */

import type { Run } from "../_target.ts";
import {
  APPLY_PATCH,
  MERGE_PATCH,
  type Scenario,
  STRATEGIC_PATCH,
} from "./_common.ts";

const CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io";

/** Waits (quietly) until the definition at `path` is Established. */
async function established(r: Run, path: string): Promise<void> {
  await r.until("the definition's Established condition", async () => {
    const { body } = await r.send("poll", "GET", path, { quiet: true });
    const conditions = (body as {
      status?: { conditions?: { type: string; status: string }[] | null };
    }).status?.conditions ?? [];
    return conditions.some((c) =>
      c.type === "Established" && c.status === "True"
    );
  });
}

/** Waits (quietly) until `path` answers 404. */
async function gone(r: Run, path: string): Promise<void> {
  await r.until(`${path} to go`, async () => {
    const { status } = await r.send("poll", "GET", path, { quiet: true });
    return status === 404;
  });
}

/** The scenarios of this area, in order. */
export const CUSTOM_RESOURCES: readonly Scenario[] = [
  {
    name: "custom-resources",
    async run(r): Promise<void> {
      // Cluster-scoped: the group carries the run's namespace to be unique.
      const group = `${r.namespace}.example.com`;
      const crd = `gadgets.${group}`;
      const crds = CRDS;
      const gadgets = `/apis/${group}/v1/namespaces/${r.namespace}/gadgets`;
      try {
        await r.send("create definition", "POST", crds, {
          body: {
            apiVersion: "apiextensions.k8s.io/v1",
            kind: "CustomResourceDefinition",
            metadata: { name: crd },
            spec: {
              group,
              names: { plural: "gadgets", singular: "gadget", kind: "Gadget" },
              scope: "Namespaced",
              versions: [{
                name: "v1",
                served: true,
                storage: true,
                subresources: { status: {} },
                schema: {
                  openAPIV3Schema: {
                    type: "object",
                    properties: {
                      spec: {
                        type: "object",
                        required: ["size"],
                        properties: {
                          size: { type: "integer", minimum: 1 },
                          color: { type: "string", default: "blue" },
                          tags: {
                            type: "array",
                            items: { type: "string" },
                            maxItems: 2,
                          },
                        },
                      },
                      status: {
                        type: "object",
                        properties: { ready: { type: "boolean" } },
                      },
                    },
                  },
                },
              }],
            },
          },
        });
        await established(r, `${crds}/${crd}`);
        const gadget = (spec: unknown, extra: object = {}): unknown => ({
          apiVersion: `${group}/v1`,
          kind: "Gadget",
          metadata: { name: "g" },
          spec,
          ...extra,
        });
        await r.send("create pruned and defaulted", "POST", gadgets, {
          body: gadget({ size: 2, extra: "dropped" }, {
            status: { ready: true },
          }),
        });
        await r.send("invalid value", "POST", gadgets, {
          body: {
            ...gadget({ size: 0, tags: ["a", "b", "c"] }) as object,
            metadata: { name: "bad" },
          },
        });
        await r.send("wrong type", "POST", gadgets, {
          body: {
            ...gadget({ size: "big" }) as object,
            metadata: { name: "bad2" },
          },
        });
        await r.send("missing required", "POST", gadgets, {
          body: {
            ...gadget({ color: "red" }) as object,
            metadata: { name: "bad3" },
          },
        });
        await r.send(
          "strict field validation",
          "POST",
          `${gadgets}?fieldValidation=Strict`,
          {
            body: {
              ...gadget({ size: 1, nope: 1 }) as object,
              metadata: { name: "strict" },
            },
          },
        );
        await r.send(
          "status through the main path is ignored",
          "PATCH",
          `${gadgets}/g`,
          {
            body: { status: { ready: true } },
            contentType: MERGE_PATCH,
          },
        );
        await r.send("status through /status", "PATCH", `${gadgets}/g/status`, {
          body: { status: { ready: true } },
          contentType: MERGE_PATCH,
        });
        await r.send("strategic merge is refused", "PATCH", `${gadgets}/g`, {
          body: { spec: { size: 3 } },
          contentType: STRATEGIC_PATCH,
        });
      } finally {
        await r.send("cleanup", "DELETE", `${crds}/${crd}`, { quiet: true });
      }
    },
  },
  {
    name: "custom-resource-versions",
    async run(r): Promise<void> {
      const group = `${r.namespace}.example.com`;
      const crd = `sprockets.${group}`;
      const base = `/apis/${group}`;
      const at = (version: string): string =>
        `${base}/${version}/namespaces/${r.namespace}/sprockets`;
      const schema = (extra: object = {}): unknown => ({
        openAPIV3Schema: {
          type: "object",
          properties: {
            spec: {
              type: "object",
              properties: {
                size: { type: "integer" },
                color: { type: "string", default: "blue" },
                options: {
                  type: "object",
                  properties: { retries: { type: "integer", default: 3 } },
                },
                ports: {
                  type: "array",
                  "x-kubernetes-list-type": "map",
                  "x-kubernetes-list-map-keys": ["name"],
                  items: {
                    type: "object",
                    required: ["name"],
                    properties: {
                      name: { type: "string" },
                      port: { type: "integer" },
                    },
                  },
                },
                ...extra,
              },
            },
            status: {
              type: "object",
              properties: { ready: { type: "boolean" } },
            },
          },
        },
      });
      const definition = (versions: unknown[]): unknown => ({
        apiVersion: "apiextensions.k8s.io/v1",
        kind: "CustomResourceDefinition",
        metadata: { name: crd },
        spec: {
          group,
          names: { plural: "sprockets", kind: "Sprocket" },
          scope: "Namespaced",
          versions,
        },
      });
      try {
        await r.send("wrong name", "POST", CRDS, {
          body: {
            ...definition([{
              name: "v1",
              served: true,
              storage: true,
              schema: schema(),
            }]) as object,
            metadata: { name: `gears.${group}` },
          },
        });
        await r.send("not structural", "POST", CRDS, {
          body: definition([{
            name: "v1",
            served: true,
            storage: true,
            schema: schema({ loose: { description: "no type" } }),
          }]),
        });
        await r.send("create definition", "POST", CRDS, {
          body: definition([
            {
              name: "v1beta1",
              served: true,
              storage: false,
              subresources: { status: {} },
              schema: schema(),
            },
            {
              name: "v1",
              served: true,
              storage: true,
              subresources: { status: {} },
              additionalPrinterColumns: [
                { name: "Size", type: "integer", jsonPath: ".spec.size" },
                { name: "Color", type: "string", jsonPath: ".spec.color" },
                { name: "Ready", type: "boolean", jsonPath: ".status.ready" },
              ],
              schema: schema(),
            },
          ]),
        });
        await established(r, `${CRDS}/${crd}`);
        await r.send("get established definition", "GET", `${CRDS}/${crd}`);
        await r.send("group discovery", "GET", base);
        await r.send("create through v1beta1", "POST", at("v1beta1"), {
          body: {
            apiVersion: `${group}/v1beta1`,
            kind: "Sprocket",
            metadata: { name: "old" },
            spec: { size: 1 },
          },
        });
        await r.send("read through v1", "GET", `${at("v1")}/old`);
        await r.send("list through v1beta1", "GET", at("v1beta1"));
        await r.send("nested default where parent exists", "POST", at("v1"), {
          body: {
            apiVersion: `${group}/v1`,
            kind: "Sprocket",
            metadata: { name: "nested" },
            spec: { size: 2, options: {} },
          },
        });
        await r.send("table", "GET", at("v1"), { accept: TABLE });
        await r.send("status ignores spec", "PATCH", `${at("v1")}/old/status`, {
          body: { spec: { size: 9 }, status: { ready: true } },
          contentType: MERGE_PATCH,
        });
        await r.send("spec bumps generation", "PATCH", `${at("v1")}/old`, {
          body: { spec: { size: 5 }, status: { ready: false } },
          contentType: MERGE_PATCH,
        });
        await r.send(
          "apply ports a",
          "PATCH",
          `${at("v1")}/ported?fieldManager=a`,
          {
            body: {
              apiVersion: `${group}/v1`,
              kind: "Sprocket",
              metadata: { name: "ported" },
              spec: { ports: [{ name: "http", port: 80 }] },
            },
            contentType: APPLY_PATCH,
          },
        );
        await r.send(
          "apply ports b",
          "PATCH",
          `${at("v1")}/ported?fieldManager=b`,
          {
            body: {
              apiVersion: `${group}/v1`,
              kind: "Sprocket",
              metadata: { name: "ported" },
              spec: { ports: [{ name: "https", port: 443 }] },
            },
            contentType: APPLY_PATCH,
          },
        );
        await r.send("delete definition", "DELETE", `${CRDS}/${crd}`, {
          quiet: true,
        });
        await gone(r, `${CRDS}/${crd}`);
        await r.send("objects gone with it", "GET", at("v1"));
      } finally {
        await r.send("cleanup", "DELETE", `${CRDS}/${crd}`, { quiet: true });
      }
    },
  },
];
