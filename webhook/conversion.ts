/**
 * Conversion webhooks: {@linkcode conversion}.
 *
 * @module
 */
import { type Logger, loggerOf } from "../_internal/log.ts";
import type { KubeObject } from "../apiclient/types.ts";
import { HandlerError, ReviewError } from "./errors.ts";
import { copy, requestOf } from "./_review.ts";
import { isObject } from "../_internal/json.ts";
import type { ConversionReview, ReviewContext, Webhook } from "./types.ts";

/**
 * Converts one object to another version of its definition.
 *
 * @param object The object, in its own version (`apiVersion` says which).
 * @param version The version to convert to, such as `v1`.
 * @param context The signal and `warn` (warnings of a conversion are dropped
 *   by the API server; `warn` goes nowhere).
 * @returns The object in `version`; its `apiVersion` is set by the library.
 */
export type Converter = (
  object: KubeObject,
  version: string,
  context: ReviewContext,
) => KubeObject | Promise<KubeObject>;

/**
 * The parts of a `defineResource` definition that {@linkcode conversion}
 * uses; a `ResourceDefinition` is one.
 */
export interface ConvertibleDefinition {
  /** The API group. */
  readonly group: string;
  /** The kind. */
  readonly kind: string;
  /** The schema of each version, by name. */
  readonly schemas: Readonly<Record<string, unknown>>;
  /** The definition as the `Resource` of another of its versions. */
  forVersion(name: string): { decode(value: unknown): unknown };
}

/** What {@linkcode conversion} takes beside the definition and converter. */
export interface ConversionOptions {
  /** Names the webhook in errors. Default `conversion`. */
  name?: string | undefined;
  /**
   * Whether each converted object is decoded (validated, pruned,
   * defaulted) with the schema of its new version. Default `true`.
   */
  decode?: boolean | undefined;
  /**
   * Hears what the converter threw, as a {@linkcode HandlerError} on an
   * error line. Default: the server's logger, else `console.error`.
   */
  logger?: Logger | undefined;
}

/**
 * A conversion webhook for the versions of a `defineResource` definition
 * (apiextensions.k8s.io/v1 `ConversionReview`). The converter gets each
 * object and the version wanted; the library sets `apiVersion`, checks that
 * `metadata.uid`, `name` and `namespace` are unchanged (else the review
 * fails with a message naming the field), keeps from the converter's
 * metadata only `labels` and `annotations` (the rest is restored, as the
 * API server does), and by default decodes the result with the new
 * version's schema. Objects already in the wanted version pass unchanged.
 * A converter that throws fails the whole review (`result.status:
 * Failure`), which the API server answers as a 500 for the request.
 *
 * @example Between `v1beta1` (`spec.count`) and `v1` (`spec.size`)
 * ```ts
 * import assert from "node:assert/strict";
 * import { defineResource } from "@liken/kubernetes/resource";
 * import { conversion } from "@liken/kubernetes/webhook";
 *
 * const spec = (field: string) => ({
 *   type: "object",
 *   properties: { spec: { type: "object", properties: { [field]: { type: "integer" } } } },
 * }) as const;
 * const GADGETS = defineResource({
 *   group: "example.com",
 *   kind: "Gadget",
 *   plural: "gadgets",
 *   scope: "Namespaced",
 *   versions: [
 *     { name: "v1", storage: true, schema: spec("size") },
 *     { name: "v1beta1", schema: spec("count") },
 *   ],
 * });
 * const webhook = conversion(GADGETS, (object, version) => {
 *   const { spec = {}, ...rest } = object as { spec?: Record<string, unknown> } & typeof object;
 *   return version === "v1"
 *     ? { ...rest, spec: { size: spec.count } }
 *     : { ...rest, spec: { count: spec.size } };
 * });
 * const review = await webhook.review({
 *   apiVersion: "apiextensions.k8s.io/v1",
 *   kind: "ConversionReview",
 *   request: {
 *     uid: "c1",
 *     desiredAPIVersion: "example.com/v1",
 *     objects: [{
 *       apiVersion: "example.com/v1beta1",
 *       kind: "Gadget",
 *       metadata: { name: "g", namespace: "default", uid: "x" },
 *       spec: { count: 3 },
 *     }],
 *   },
 * });
 * const response = review.response!;
 * assert.equal(response.result.status, "Success");
 * assert.equal(response.convertedObjects[0]?.apiVersion, "example.com/v1");
 * assert.deepEqual(
 *   (response.convertedObjects[0] as { spec?: unknown } | undefined)?.spec,
 *   { size: 3 },
 * );
 * ```
 *
 * @param definition The definition whose versions are converted.
 * @param convert Converts one object.
 * @param options The name, decoding and the logger.
 * @returns The webhook, to route in a `WebhookServer`.
 */
export function conversion(
  definition: ConvertibleDefinition,
  convert: Converter,
  options: ConversionOptions = {},
): Webhook<ConversionReview> {
  const name = options.name ?? "conversion";
  const decode = options.decode ?? true;
  const versions = Object.keys(definition.schemas);
  return {
    type: "conversion",
    async review(body, reviewOptions = {}): Promise<ConversionReview> {
      const request = requestOf(
        body,
        "apiextensions.k8s.io/v1",
        "ConversionReview",
      );
      const desired = request.desiredAPIVersion;
      if (typeof desired !== "string") {
        throw new ReviewError("The request has no desiredAPIVersion");
      }
      if (!Array.isArray(request.objects)) {
        throw new ReviewError("The request's objects is not a list");
      }
      const objects = request.objects as unknown[];
      objects.forEach((object, i) => {
        if (!isObject(object) || !isObject(object.metadata)) {
          throw new ReviewError(
            `The request's objects[${i}] is not an object with metadata`,
          );
        }
      });
      const uid = request.uid;
      const context: ReviewContext = {
        signal: reviewOptions.signal ?? new AbortController().signal,
        warn(): void {},
      };
      try {
        const [group, version] = splitApiVersion(desired);
        if (group !== definition.group || !versions.includes(version)) {
          throw new ConversionFailure(
            `${desired} is not a version of ${definition.kind}.${definition.group}`,
          );
        }
        const converted: KubeObject[] = [];
        for (const sent of objects as KubeObject[]) {
          converted.push(
            await convertOne(sent, group, version, convert, context),
          );
        }
        const out = decode
          ? converted.map((object) =>
            definition.forVersion(version).decode(object) as KubeObject
          )
          : converted;
        return answer(uid, out, { status: "Success" });
      } catch (error) {
        if (!(error instanceof ConversionFailure)) {
          try {
            if (!context.signal.aborted) {
              loggerOf(options.logger ?? reviewOptions.logger, {
                webhook: name,
              }).error(new HandlerError(name, uid, error), "Converter failed");
            }
          } catch { /* a failing sink must not fail the answer */ }
        }
        return answer(uid, [], {
          status: "Failure",
          message: error instanceof Error ? error.message : String(error),
        });
      }
    },
  };
}

class ConversionFailure extends Error {}

function answer(
  uid: string,
  convertedObjects: KubeObject[],
  result: { status: string; message?: string },
): ConversionReview {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "ConversionReview",
    response: { uid, convertedObjects, result },
  };
}

function splitApiVersion(apiVersion: string): [string, string] {
  const slash = apiVersion.indexOf("/");
  return slash < 0
    ? ["", apiVersion]
    : [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)];
}

async function convertOne(
  sent: KubeObject,
  group: string,
  version: string,
  convert: Converter,
  context: ReviewContext,
): Promise<KubeObject> {
  const [from, fromVersion] = splitApiVersion(String(sent.apiVersion ?? ""));
  const who = describeObject(sent);
  if (from !== group) {
    throw new ConversionFailure(
      `The object ${who} is of ${
        JSON.stringify(sent.apiVersion ?? null)
      }, not of the group ${group}`,
    );
  }
  if (fromVersion === version) return sent;
  const result = await convert(copy(sent), version, context);
  if (!isObject(result) || !isObject(result.metadata)) {
    throw new TypeError(`The converter returned no object for ${who}`);
  }
  for (const field of ["uid", "name", "namespace"] as const) {
    if ((result.metadata[field] ?? "") !== (sent.metadata[field] ?? "")) {
      throw new ConversionFailure(
        `The conversion of ${who} changed metadata.${field}, which it may not`,
      );
    }
  }
  // Only labels and annotations may change: the rest is restored.
  const metadata = copy(sent.metadata);
  for (const field of ["labels", "annotations"] as const) {
    const value = result.metadata[field];
    if (value === undefined) delete metadata[field];
    else metadata[field] = value as Record<string, string>;
  }
  return {
    ...result,
    apiVersion: `${group}/${version}`,
    kind: sent.kind ?? result.kind,
    metadata,
  } as KubeObject;
}

function describeObject(object: KubeObject): string {
  const { namespace, name } = object.metadata;
  return JSON.stringify(namespace ? `${namespace}/${name ?? ""}` : name ?? "");
}
