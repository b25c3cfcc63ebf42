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
     * changes), written when there are several versions. Webhook
     * conversion is not written yet.
     */
    conversion?: { strategy: "None" };
  };
}
