/**
 * Conversion webhooks, as kube-apiserver's apiextensions server calls them
 * (`webhook_converter.go`): a definition with `conversion.strategy:
 * Webhook` has every object that crosses between its storage version and
 * another version sent to the webhook in a `ConversionReview`
 * (apiextensions.k8s.io/v1, one object per review, as the API server
 * converts each object it encodes or decodes), over HTTPS trusting the
 * `caBundle`, with `?timeout=30s`. The answer is checked as the API server
 * checks it (the uid, `result.status`, the count, each object's
 * `apiVersion`, kind, name, namespace and uid) and the metadata is
 * restored but for labels and annotations. A failure is the API server's
 * 500, in its words. A request runs in rounds (`_crds/conversion_round.ts`);
 * a watch converts each event as it goes out.
 *
 * @module
 */
import type { KubeObject, WatchEvent } from "../../apiclient/types.ts";
import { pruneWith } from "../../_internal/schema/decode.ts";
import type { Schema } from "../../resource/schema.ts";
import type { WebhookConversion } from "./conversion_config.ts";
import {
  ConversionRound,
  type Converted,
  inRound,
  keyOf,
  type Pending,
  ReadConversionError,
  restored,
} from "./conversion_round.ts";
import { apiVersionOf, isObject } from "../_store/objects.ts";
import { parseRoute } from "../_http/route.ts";
import { servedVersion, webhookConverted } from "../_http/served.ts";
import type { ServerState } from "../_store/state.ts";
import { CallError, postReview } from "../_admission/webhook_client.ts";
import type { RegisteredResource } from "../types.ts";

/** The API server's timeout for a conversion webhook (its REST client's). */
const TIMEOUT_SECONDS = 30;
/** Rounds of a request before it answers as it stands. */
const ROUNDS = 8;

/**
 * Answers a request through the conversion webhook of its resource, when
 * it has one and the request is in another version than the storage
 * version: `next` runs in rounds until every conversion it meets is
 * done. A watch is converted event by event instead (`watchConversion`).
 */
export async function converting(
  state: ServerState,
  url: URL,
  method: string,
  signal: AbortSignal,
  next: () => Promise<Response>,
): Promise<Response> {
  const found = method === "GET" && url.searchParams.get("watch") !== null &&
      !["0", "false"].includes(url.searchParams.get("watch")!)
    ? undefined
    : parseRoute(state.resources, url.pathname);
  const resource = found?.resource;
  if (resource === undefined || !webhookConverted(resource)) {
    return await next();
  }
  const served = servedVersion(resource)!;
  const round = new ConversionRound();
  for (let i = 1;; i++) {
    round.pending = [];
    round.wrote = false;
    state.warnings = [];
    let answer: Response | undefined;
    let failure: unknown;
    try {
      answer = await inRound(round, next);
    } catch (error) {
      failure = error;
    }
    const pending = round.pending;
    if (pending.length === 0 || i === ROUNDS) {
      if (answer === undefined) throw failure;
      return answer;
    }
    if (round.wrote) {
      // Stored, but its answer met a conversion no round foresaw.
      return await reanswered(state, resource, answer, pending, signal);
    }
    await answer?.body?.cancel();
    for (const wanted of pending) {
      await settle(state, served.webhook!, round, wanted, signal);
    }
  }
}

// Converts one pending conversion into the round's results; a write's
// stored object is read back at once, as the API server decodes it.
async function settle(
  state: ServerState,
  webhook: WebhookConversion,
  round: ConversionRound,
  wanted: Pending,
  signal: AbortSignal,
): Promise<void> {
  const call = (object: KubeObject, target: string): Promise<Converted> =>
    convertOnce(webhook, object, target, {
      transport: state.webhookTransport,
      signal,
    });
  const result = await call(wanted.input, wanted.target);
  round.results.set(wanted.key, result);
  const write = wanted.write;
  if (write === undefined || "error" in result) return;
  const written = write.stored(restored(wanted.input, result.object));
  const key = round.upcoming(keyOf(written, write.back, true));
  round.results.set(key, await call(written, write.back));
}

// The answer of a write whose object, as stored, was read back in a way
// no round foresaw: the stored object converted now.
async function reanswered(
  state: ServerState,
  resource: RegisteredResource,
  answer: Response | undefined,
  pending: Pending[],
  signal: AbortSignal,
): Promise<Response> {
  const wanted = pending[0]!;
  if (answer === undefined || pending.length !== 1 || !answer.ok) {
    await answer?.body?.cancel();
    return answer ?? Response.error();
  }
  const served = servedVersion(resource)!;
  const result = await convertOnce(
    served.webhook!,
    wanted.input,
    wanted.target,
    {
      transport: state.webhookTransport,
      signal,
    },
  );
  await answer.body?.cancel();
  if ("error" in result) {
    const failed = new ReadConversionError(
      wanted.input,
      resource,
      result.error,
    );
    return new Response(JSON.stringify(failed.status), {
      status: 500,
      headers: { "content-type": "application/json" },
    });
  }
  const object = pruned(restored(wanted.input, result.object), served.schema);
  return new Response(JSON.stringify(object), {
    status: answer.status,
    headers: answer.headers,
  });
}

/**
 * What a watch of `resource` sends for each event, converted by its
 * webhook (an `ERROR` event when that fails); `undefined` when the
 * resource is not converted by a webhook.
 */
export function watchConversion(
  state: ServerState,
  resource: RegisteredResource,
  signal: AbortSignal,
): ((event: WatchEvent) => Promise<WatchEvent>) | undefined {
  if (!webhookConverted(resource)) return undefined;
  const served = servedVersion(resource)!;
  const target = apiVersionOf(resource);
  return async (event) => {
    const object = event.object as KubeObject;
    if (
      (event.type !== "ADDED" && event.type !== "MODIFIED" &&
        event.type !== "DELETED") || object.apiVersion === target
    ) return event;
    const result = await convertOnce(served.webhook!, object, target, {
      transport: state.webhookTransport,
      signal,
    });
    if ("error" in result) {
      return {
        type: "ERROR",
        object: new ReadConversionError(object, resource, result.error).status,
      } as WatchEvent;
    }
    return {
      type: event.type,
      object: pruned(restored(object, result.object), served.schema),
    };
  };
}

function pruned(object: KubeObject, schema: Schema | undefined): KubeObject {
  if (schema === undefined) return object;
  return pruneWith(schema, object as unknown as Record<string, unknown>)
    .object as unknown as KubeObject;
}

/**
 * One `ConversionReview` of one object to `target`, and the webhook's
 * answer checked as `webhook_converter.go` checks it: the converted
 * object as the webhook wrote it, or the API server's message.
 */
export async function convertOnce(
  webhook: WebhookConversion,
  object: KubeObject,
  target: string,
  options: {
    transport: ServerState["webhookTransport"];
    signal: AbortSignal;
  },
): Promise<Converted> {
  const from = gvk(object.apiVersion, object.kind);
  const failed = (text: string): Converted => ({
    error: `conversion webhook for ${from} ${text}`,
  });
  const uid = crypto.randomUUID();
  const review = {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "ConversionReview",
    request: { uid, desiredAPIVersion: target, objects: [object] },
  };
  let body: unknown;
  try {
    body = await postReview(webhook.clientConfig, review, {
      timeoutSeconds: TIMEOUT_SECONDS,
      ...options,
    });
  } catch (error) {
    if (!(error instanceof CallError)) throw error;
    // client-go's own words, without the admission webhooks' prefix.
    return failed(
      `failed: ${error.message.replace(/^failed to call webhook: /, "")}`,
    );
  }
  const answer = isObject(body) ? body : {};
  if (
    answer.apiVersion !== "apiextensions.k8s.io/v1" ||
    answer.kind !== "ConversionReview"
  ) {
    return failed(
      `failed: expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got ${
        gvk(answer.apiVersion, answer.kind)
      }`,
    );
  }
  const response = answer.response;
  if (!isObject(response)) return failed("failed: no response provided");
  if (response.uid !== uid) {
    return failed(
      `failed: expected response.uid=${JSON.stringify(uid)}, got ${
        JSON.stringify(typeof response.uid === "string" ? response.uid : "")
      }`,
    );
  }
  const result = isObject(response.result) ? response.result : {};
  if (result.status !== "Success") {
    return failed(
      typeof result.message === "string" && result.message !== ""
        ? `failed: ${result.message}`
        : `failed: response.result.status was '${
          typeof result.status === "string" ? result.status : ""
        }', not 'Success'`,
    );
  }
  const objects = Array.isArray(response.convertedObjects)
    ? response.convertedObjects
    : [];
  if (objects.length !== 1) {
    return failed(`returned ${objects.length} objects, expected 1`);
  }
  const converted = objects[0];
  if (!isObject(converted)) {
    return failed("failed, unexpected type at index 0");
  }
  const received = groupVersion(converted.apiVersion);
  if (received !== target) {
    return failed(
      `returned invalid object at index 0: invalid groupVersion (expected ${target}, received ${received})`,
    );
  }
  if (converted.kind !== object.kind) {
    return failed(
      `returned invalid object at index 0: invalid kind (expected ${object.kind}, received ${
        typeof converted.kind === "string" ? converted.kind : ""
      })`,
    );
  }
  const metadata = isObject(converted.metadata) ? converted.metadata : {};
  for (
    const [field, label] of [
      ["name", "name"],
      ["namespace", "namespace"],
      ["uid", "UID"],
    ] as const
  ) {
    const was = object.metadata[field] ?? "";
    const now = typeof metadata[field] === "string" ? metadata[field] : "";
    if (was !== now) {
      return failed(
        `returned invalid object: must have the same ${label}: ${was} != ${now}`,
      );
    }
  }
  const invalid = metadataError(converted.metadata);
  if (invalid !== undefined) {
    return failed(`returned invalid metadata: ${invalid}`);
  }
  return { object: converted as unknown as KubeObject };
}

// restoreObjectMeta's refusals: metadata, labels and annotations of the
// wrong type.
function metadataError(metadata: unknown): string | undefined {
  if (metadata === undefined) return "missing metadata in converted object";
  if (!isObject(metadata)) {
    return `invalid metadata of type ${goType(metadata)} in converted object`;
  }
  for (const field of ["labels", "annotations"]) {
    const value = metadata[field];
    if (value === undefined || value === null) continue;
    if (!isObject(value)) {
      return `invalid metadata.${field} of type ${
        goType(value)
      } in converted object`;
    }
    for (const [key, item] of Object.entries(value)) {
      if (typeof item !== "string") {
        return `metadata.${field}[${key}] must be a string, but is ${
          goType(item)
        } in converted object`;
      }
    }
  }
  return undefined;
}

/** A kind as Go prints a `schema.GroupVersionKind`. */
function gvk(apiVersion: unknown, kind: unknown): string {
  const version = typeof apiVersion === "string" ? apiVersion : "";
  return `${version.includes("/") ? version : `/${version}`}, Kind=${
    typeof kind === "string" ? kind : ""
  }`;
}

/** An `apiVersion` as Go prints its `schema.GroupVersion`. */
function groupVersion(apiVersion: unknown): string {
  return typeof apiVersion === "string" ? apiVersion : "";
}

/** The Go type of a decoded JSON value, as `%T` prints it. */
function goType(value: unknown): string {
  if (value === null) return "<nil>";
  if (Array.isArray(value)) return "[]interface {}";
  switch (typeof value) {
    case "string":
      return "string";
    case "boolean":
      return "bool";
    case "number":
      return Number.isInteger(value) ? "int64" : "float64";
    default:
      return "map[string]interface {}";
  }
}
