/**
 * The `apiextensions.k8s.io/v1` CustomResourceDefinition, as far as
 * `defineResource` writes it.
 *
 * @module
 */

import type { ObjectMeta } from "../apiclient/mod.ts";
import type { ObjectSchema } from "./schema.ts";

/**
 * A column `kubectl get` prints for the kind (`additionalPrinterColumns`).
 *
 * @example
 * ```ts
 * import type { PrinterColumn } from "@liken/kubernetes/resource";
 *
 * const age: PrinterColumn = { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" };
 * void age;
 * ```
 */
export interface PrinterColumn {
  /** The column's heading. */
  name: string;
  /** How the value reads: `integer`, `number`, `string`, `boolean` or `date`. */
  type: "integer" | "number" | "string" | "boolean" | "date";
  /** A JSONPath into the object, such as `.spec.message`. */
  jsonPath: string;
  /** What the column shows. */
  description?: string | undefined;
  /** A format for the value, such as `int32` or `date-time`. */
  format?: string | undefined;
  /** 0 for `kubectl get`; higher only with `-o wide`. Default 0. */
  priority?: number | undefined;
}

/** The names of the kind (`spec.names`). */
export interface CustomResourceDefinitionNames {
  /** The plural resource name, such as `greetings`. */
  plural: string;
  /** The singular name, such as `greeting`. */
  singular: string;
  /** The kind, such as `Greeting`. */
  kind: string;
  /** The kind of a list, such as `GreetingList`. */
  listKind: string;
  /** Short names for `kubectl`, such as `greet`. */
  shortNames?: string[];
  /** Groups of resources for `kubectl get <category>`, such as `all`. */
  categories?: string[];
}

/**
 * The `scale` subresource of a version (`subresources.scale`): where an
 * autoscaling/v1 `Scale` reads and writes the replicas of an object.
 *
 * @example
 * ```ts
 * import type { ScaleSubresource } from "@liken/kubernetes/resource";
 *
 * const scale: ScaleSubresource = {
 *   specReplicasPath: ".spec.replicas",
 *   statusReplicasPath: ".status.replicas",
 *   labelSelectorPath: ".status.selector",
 * };
 * void scale;
 * ```
 */
export interface ScaleSubresource {
  /** The JSONPath under `.spec` of the desired replicas (`Scale.spec.replicas`). */
  specReplicasPath: string;
  /** The JSONPath under `.status` of the observed replicas (`Scale.status.replicas`; 0 when absent). */
  statusReplicasPath: string;
  /** The JSONPath of a label selector in its string form (`Scale.status.selector`). Default none. */
  labelSelectorPath?: string | undefined;
}

/** One version of the kind (`spec.versions[]`). */
export interface CustomResourceDefinitionVersion {
  /** The version, such as `v1alpha1`. */
  name: string;
  /** Whether the API server serves it. */
  served: boolean;
  /** Whether objects are stored in it (exactly one version is). */
  storage: boolean;
  /** Whether a request for it earns a `Warning` header. */
  deprecated?: boolean;
  /** The warning's text, instead of the API server's own. */
  deprecationWarning?: string;
  /** The subresources (`status`, `scale`). */
  subresources?: { status?: Record<string, never>; scale?: ScaleSubresource };
  /** The columns of `kubectl get`. */
  additionalPrinterColumns?: PrinterColumn[];
  /** Fields a field selector may name beside `metadata.name` and `metadata.namespace`. */
  selectableFields?: { jsonPath: string }[];
  /** The structural schema. */
  schema: { openAPIV3Schema: ObjectSchema };
}

/**
 * An `apiextensions.k8s.io/v1` CustomResourceDefinition, as
 * `definition.crd()` answers it.
 *
 * @example
 * ```ts
 * import type { CustomResourceDefinition } from "@liken/kubernetes/resource";
 *
 * function served(crd: CustomResourceDefinition): string[] {
 *   return crd.spec.versions.filter((v) => v.served).map((v) => v.name);
 * }
 * void served;
 * ```
 */
export interface CustomResourceDefinition {
  /** Always `apiextensions.k8s.io/v1`. */
  apiVersion: "apiextensions.k8s.io/v1";
  /** Always `CustomResourceDefinition`. */
  kind: "CustomResourceDefinition";
  /** Its name is `<plural>.<group>`. */
  metadata: ObjectMeta;
  /** What it defines. */
  spec: {
    /** The API group. */
    group: string;
    /** The names of the kind. */
    names: CustomResourceDefinitionNames;
    /** `Namespaced` or `Cluster`. */
    scope: "Namespaced" | "Cluster";
    /** The versions. */
    versions: CustomResourceDefinitionVersion[];
    /**
     * How objects pass between versions: `None` (only `apiVersion`
     * changes), written when there are several versions, or `Webhook` (a
     * conversion webhook), written when `crd({ conversion })` asks for it.
     */
    conversion?: CustomResourceConversion;
  };
}

/**
 * Where the API server calls a webhook (`clientConfig` of a conversion
 * webhook): a Service of the cluster, or a URL; with the CA that signed
 * its serving certificate.
 *
 * @example
 * ```ts
 * import type { WebhookClientConfig } from "@liken/kubernetes/resource";
 *
 * const config: WebhookClientConfig = {
 *   service: { namespace: "ops", name: "hooks", path: "/convert" },
 * };
 * void config;
 * ```
 */
export type WebhookClientConfig =
  & {
    /**
     * The CA bundle (PEM, base64-encoded) the API server trusts for the
     * webhook's certificate. Default none: the API server's own roots
     * (cert-manager's `inject-ca-from` annotation fills it in).
     */
    caBundle?: string | undefined;
  }
  & (
    | {
      /** The Service, reached at `https://<name>.<namespace>.svc:<port><path>`. */
      service: ServiceReference;
      /** Not beside `service`. */
      url?: undefined;
    }
    | {
      /** An `https://` URL, such as `https://127.0.0.1:9443/convert`. */
      url: string;
      /** Not beside `url`. */
      service?: undefined;
    }
  );

/** A Service a webhook is served by (`clientConfig.service`). */
export interface ServiceReference {
  /** The Service's namespace. */
  namespace: string;
  /** The Service's name. */
  name: string;
  /** The path the webhook is served at, such as `/convert`. Default `/`. */
  path?: string | undefined;
  /** The Service's port. Default 443 (the API server's default). */
  port?: number | undefined;
}

/**
 * How objects pass between the versions of a kind (`spec.conversion`):
 * `None`, where only `apiVersion` changes, or `Webhook`, where the API
 * server sends a `ConversionReview` (apiextensions.k8s.io/v1) to a
 * webhook for every object read or written in a version other than the
 * storage version (`conversion` of `@liken/kubernetes/webhook` answers
 * them).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { defineResource } from "@liken/kubernetes/resource";
 *
 * const spec = (field: string) => ({
 *   type: "object",
 *   properties: { spec: { type: "object", properties: { [field]: { type: "string" } } } },
 * }) as const;
 * const NOTES = defineResource({
 *   group: "example.com",
 *   kind: "Note",
 *   plural: "notes",
 *   scope: "Namespaced",
 *   versions: [
 *     { name: "v1", storage: true, schema: spec("message") },
 *     { name: "v2", schema: spec("text") },
 *   ],
 * });
 * const crd = NOTES.crd({
 *   conversion: {
 *     strategy: "Webhook",
 *     webhook: {
 *       clientConfig: {
 *         service: { namespace: "ops", name: "hooks", path: "/convert" },
 *       },
 *       conversionReviewVersions: ["v1"],
 *     },
 *   },
 * });
 * assert.equal(crd.spec.conversion?.strategy, "Webhook");
 * ```
 */
export type CustomResourceConversion =
  | {
    /** Only `apiVersion` changes between versions. */
    strategy: "None";
    /** Not with `None`. */
    webhook?: undefined;
  }
  | {
    /** A webhook converts between versions. */
    strategy: "Webhook";
    /** The webhook. */
    webhook: {
      /** Where the API server calls it. */
      clientConfig: WebhookClientConfig;
      /**
       * The `ConversionReview` versions the webhook understands, in
       * order of preference; the API server sends the first it knows
       * (only `v1` exists).
       */
      conversionReviewVersions: string[];
    };
  };

/** What `definition.crd()` takes. */
export interface CrdOptions {
  /**
   * How objects pass between versions. Default `{ strategy: "None" }`
   * when there are several versions, else none written.
   */
  conversion?: CustomResourceConversion | undefined;
}
