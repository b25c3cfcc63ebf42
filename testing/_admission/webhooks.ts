/**
 * A write with admission policies and webhooks, in kube-apiserver's order:
 * decoding and defaulting; the mutating policies, then the mutating
 * webhooks, one at a time, each change applied (then decoded, pruned and
 * defaulted again), reinvoked across both; the registry's rules and
 * validation; the validating policies; the validating webhooks (in
 * parallel); then storage.
 *
 * The verbs are synchronous and webhook calls are not, so a write runs as
 * up to three passes of its own verb, each stopped by a hook
 * (`ServerState.admission`): the first, as a dry run, stops where
 * mutating admission comes and gives the candidate; the second, as a dry
 * run, takes the patched object there and stops just before storage with
 * the object the validating webhooks see (uid, creationTimestamp,
 * generation, managedFields as they will be stored); the third, as asked,
 * takes the patched object, keeps the second pass's uid, creationTimestamp
 * and generated name, and writes. A PATCH stays a PATCH throughout. When
 * the object changed between passes (another write landed while the
 * webhooks were called), the write starts over, as the API server's
 * optimistic update does.
 *
 * @module
 */
import type { KubeObject } from "../../apiclient/types.ts";
import { decodeWith } from "../../_internal/schema/decode.ts";
import { withWarnings } from "./admit.ts";
import { decodeObject } from "../_verbs/create.ts";
import { defaultDefinition, isDefinitions } from "../_crds/crd.ts";
import { failureResponse, type Received, route } from "../_http/dispatch.ts";
import { resourceKey, storeKey } from "../_store/objects.ts";
import { clone } from "../_verbs/patch.ts";
import { jsonEqual } from "../../_internal/json.ts";
import { parseRoute, type Route } from "../_http/route.ts";
import { servedVersion, view } from "../_http/served.ts";
import type { AdmissionHooks, ServerState } from "../_store/state.ts";
import { StatusError } from "../_verbs/status.ts";
import {
  anyConfiguration,
  type Attributes,
  callHook,
  DeniedError,
  matchingHooks,
} from "./webhook_call.ts";
import { checkPolicyTypes } from "./policy_status.ts";
import {
  anyPolicyBinding,
  matchingPolicies,
  mutateWithPolicy,
  validateWithPolicies,
} from "./policies.ts";
import {
  defaultWebhookConfiguration,
  isWebhookConfigurations,
} from "./webhook_config.ts";

const WRITES = ["POST", "PUT", "PATCH", "DELETE"];
const ATTEMPTS = 5;

/**
 * Answers a request: through the admission webhooks when it is a write
 * that some stored webhook configuration may be about, else straight.
 */
export async function respond(
  state: ServerState,
  received: Received,
  request: Request,
): Promise<Response> {
  const { method, url, text, body } = received;
  checkPolicyTypes(state, url);
  const target = admissionRoute(state, method, url);
  if (target === undefined) {
    return withWarnings(
      route(state, method, url, text, body, request),
      state.warnings,
    );
  }
  const write = new Write(state, received, request, target);
  return await write.answer();
}

function admissionRoute(
  state: ServerState,
  method: string,
  url: URL,
): Route | undefined {
  if (
    !WRITES.includes(method) ||
    !(anyConfiguration(state) || anyPolicyBinding(state))
  ) return undefined;
  // A malformed dryRun is refused by the verb, before admission.
  if (url.searchParams.getAll("dryRun").some((v) => v !== "All")) {
    return undefined;
  }
  const found = parseRoute(state.resources, url.pathname);
  if (found === undefined || found.subresource === "scale") return undefined;
  // A delete of a collection is not sent to webhooks (not done).
  if (method === "DELETE" && found.name === undefined) return undefined;
  return found;
}

// Where a pass stopped, and with what.
class Stop {
  constructor(
    readonly object: KubeObject | undefined,
    readonly old: KubeObject | undefined,
  ) {}
}

class Again {}

class Write {
  #state: ServerState;
  #received: Received;
  #request: Request;
  #route: Route;
  #warnings: string[] = [];

  constructor(
    state: ServerState,
    received: Received,
    request: Request,
    target: Route,
  ) {
    this.#state = state;
    this.#received = received;
    this.#request = request;
    this.#route = target;
  }

  async answer(): Promise<Response> {
    const hooked: string[] = [];
    for (let attempt = 1;; attempt++) {
      hooked.length = 0;
      try {
        const answer = await this.#attempt(hooked, attempt === ATTEMPTS);
        if (answer !== undefined) return answer;
      } catch (error) {
        if (error instanceof DeniedError) hooked.push(...error.warnings);
        return this.#failed(error, hooked);
      }
    }
  }

  // One go at the write; undefined when it must start over.
  async #attempt(
    hooked: string[],
    last: boolean,
  ): Promise<Response | undefined> {
    const first = this.#pass(true, {
      mutate: (_resource, object) => {
        const stored = this.#stored();
        // A PUT of an absent object is not found before admission.
        if (stored === undefined && this.#received.method === "PUT") {
          return object;
        }
        throw new Stop(object, stored);
      },
      validate: (_resource, object, old) => {
        throw new Stop(object, old);
      },
    });
    if (!(first instanceof Stop)) {
      // It never reached admission (an error, or a write webhooks do not
      // see): answer it as asked.
      return this.#plain();
    }
    const deleting = first.object === undefined && first.old !== undefined &&
      this.#received.method === "DELETE";
    const operation = deleting
      ? "DELETE"
      : first.old === undefined
      ? "CREATE"
      : "UPDATE";
    let candidate = first.object;
    let final = first.object;
    const unowned = first.object && clone(first.object);
    const old = first.old;
    if (candidate !== undefined) {
      const namespace = this.#route.namespace;
      if (this.#route.resource.namespaced && namespace !== undefined) {
        candidate.metadata.namespace ||= namespace;
      }
      candidate = await this.#mutate(operation, candidate, old, hooked);
      const patched = candidate;
      const second = this.#pass(true, {
        mutate: () => clone(patched),
        validate: (_resource, object) => {
          throw new Stop(object, undefined);
        },
      });
      if (second instanceof Again) return undefined;
      if (!(second instanceof Stop)) return this.#with(second, hooked);
      final = second.object;
    }
    const attributes = this.#attributes(operation, final, old);
    // The validating policies, before the validating webhooks.
    const { annotations } = validateWithPolicies(
      this.#state,
      attributes,
      hooked,
    );
    if (Object.keys(annotations).length > 0) {
      this.#received.recorded.auditAnnotations = annotations;
    }
    const answers = await Promise.allSettled(
      matchingHooks(this.#state, "validating", attributes).map(({ hook }) =>
        callHook(hook, attributes, {
          mutating: false,
          transport: this.#state.webhookTransport,
          signal: this.#request.signal,
        })
      ),
    );
    for (const settled of answers) {
      if (settled.status === "fulfilled") {
        hooked.push(...settled.value.warnings);
      } else if (settled.reason instanceof DeniedError) {
        hooked.push(...settled.reason.warnings);
      }
    }
    const refused = answers.find((a) => a.status === "rejected");
    if (refused !== undefined) {
      const reason = (refused as PromiseRejectedResult).reason;
      throw reason instanceof DeniedError
        ? new StatusError(reason.status)
        : reason;
    }
    const patched = candidate;
    const pins = operation === "CREATE" && final !== undefined
      ? {
        uid: final.metadata.uid!,
        creationTimestamp: final.metadata.creationTimestamp!,
        name: final.metadata.name!,
      }
      : undefined;
    const third = this.#pass(false, {
      mutate: () => clone(patched!),
      validate: (_resource, _object, now) => {
        const before = old?.metadata.resourceVersion;
        if (!last && now?.metadata.resourceVersion !== before) {
          throw new Again();
        }
      },
      pins,
      unowned,
    });
    if (third instanceof Again) return undefined;
    if (third instanceof Stop) throw new Error("The write stopped twice");
    return this.#with(third, hooked);
  }

  // The mutating policies, then the mutating webhooks, one at a time, as
  // the API server's admission chain and reinvocation context call them:
  // once each; then, if one changed the object, one more round in which
  // only those with `reinvocationPolicy: IfNeeded` that were called before
  // that change (and still match) are called again. None is reinvoked for
  // its own change, and none is called for the first time in that round.
  async #mutate(
    operation: Attributes["operation"],
    start: KubeObject,
    old: KubeObject | undefined,
    hooked: string[],
  ): Promise<KubeObject> {
    let candidate = start;
    let invoked: string[] = [];
    const again = new Set<string>();
    for (const round of [1, 2]) {
      if (round === 2 && again.size === 0) break;
      for (
        const policy of matchingPolicies(
          this.#state,
          "mutating",
          this.#attributes(operation, candidate, old),
        )
      ) {
        const key = policy.key;
        if (round === 2 && !again.has(key)) continue;
        const next = mutateWithPolicy(
          this.#state,
          policy,
          this.#attributes(operation, candidate, old),
        );
        let changed = false;
        if (next !== undefined && next !== candidate) {
          const decoded = this.#redecode(next);
          changed = !jsonEqual(decoded, candidate);
          candidate = decoded;
        }
        if (round === 1 && changed) {
          for (const earlier of invoked) again.add(earlier);
          invoked = [];
        }
        if (
          round === 1 && policy.policy.spec?.reinvocationPolicy === "IfNeeded"
        ) {
          invoked.push(key);
        }
      }
      const attributes = this.#attributes(operation, candidate, old);
      for (
        const { key, hook } of matchingHooks(
          this.#state,
          "mutating",
          attributes,
        )
      ) {
        if (round === 2 && !again.has(key)) continue;
        const answer = await callHook(
          hook,
          this.#attributes(operation, candidate, old),
          {
            mutating: true,
            transport: this.#state.webhookTransport,
            signal: this.#request.signal,
          },
        );
        if (!answer.called) continue;
        hooked.push(...answer.warnings);
        let changed = false;
        if (answer.object !== undefined) {
          const next = this.#redecode(answer.object);
          changed = !jsonEqual(next, candidate);
          candidate = next;
        }
        if (round === 1 && changed) {
          for (const earlier of invoked) again.add(earlier);
          invoked = [];
        }
        if (round === 1 && hook.reinvocationPolicy === "IfNeeded") {
          invoked.push(key);
        }
      }
    }
    return candidate;
  }

  #attributes(
    operation: Attributes["operation"],
    object: KubeObject | undefined,
    old: KubeObject | undefined,
  ): Attributes {
    const { resource, namespace, name, subresource } = this.#route;
    return {
      resource,
      subresource: subresource ?? "",
      namespace: resource.namespaced ? namespace ?? "" : "",
      name: name ?? object?.metadata.name ?? "",
      operation,
      object,
      old,
      dryRun: this.#received.url.searchParams.get("dryRun") === "All",
      query: this.#received.url.searchParams,
    };
  }

  // The stored object the write is about, as the request's version reads it.
  #stored(): KubeObject | undefined {
    const { resource, namespace, name } = this.#route;
    if (name === undefined) return undefined;
    const state = this.#state;
    return clone(view(
      resource,
      state.store.peek(
        resourceKey(resource),
        storeKey(resource, namespace, name),
      ),
    ));
  }

  // A patched object decoded again: typed fields, pruning and defaults.
  #redecode(object: KubeObject): KubeObject {
    const resource = this.#route.resource;
    const decoded = decodeObject(object, resource);
    if (isDefinitions(resource)) defaultDefinition(decoded);
    if (isWebhookConfigurations(resource)) {
      defaultWebhookConfiguration(decoded);
    }
    const schema = servedVersion(resource)?.schema;
    if (schema === undefined) return decoded;
    return decodeWith(schema, decoded as unknown as Record<string, unknown>)
      .object as unknown as KubeObject;
  }

  // Runs the verb once, synchronously, with the hooks.
  #pass(
    dryRun: boolean,
    hooks: AdmissionHooks,
  ): Response | Stop | Again {
    const { method, text, body } = this.#received;
    const url = new URL(this.#received.url);
    if (dryRun) url.searchParams.set("dryRun", "All");
    const state = this.#state;
    state.warnings = this.#warnings = [];
    state.admission = hooks;
    try {
      return route(state, method, url, text, body, this.#request);
    } catch (error) {
      if (error instanceof Stop || error instanceof Again) return error;
      return failureResponse(error, this.#request);
    } finally {
      state.admission = undefined;
    }
  }

  #plain(): Response {
    const { method, url, text, body } = this.#received;
    const state = this.#state;
    state.warnings = this.#warnings = [];
    try {
      return withWarnings(
        route(state, method, url, text, body, this.#request),
        this.#warnings,
      );
    } catch (error) {
      return withWarnings(
        failureResponse(error, this.#request),
        this.#warnings,
      );
    }
  }

  #with(response: Response, hooked: string[]): Response {
    return withWarnings(response, [...this.#warnings, ...hooked]);
  }

  #failed(error: unknown, hooked: string[]): Response {
    return this.#with(failureResponse(error, this.#request), hooked);
  }
}
