/**
 * The example operator's admission webhooks for `Greeting`: a defaulting
 * (mutating) one that gives a Greeting without a message the message
 * `Hello`, and a validating one that refuses a message that is empty or
 * only spaces, and warns about spaces around it. `examples/main.ts` serves
 * them on every replica (not only the leader: the API server calls
 * whichever pod the Service picks), and `deno task manifests` writes the
 * configurations that register them (`examples/manifests/webhooks.yaml`).
 *
 * The defaulting webhook runs before the schema's validation (the API
 * server's order), so the CRD can keep `spec.message` required.
 *
 * @module
 */
import type { WebhookManifest } from "../manifests/mod.ts";
import { Denied, mutating, validating, type Webhook } from "../webhook/mod.ts";
import { GREETING, type Greeting } from "./greeting.ts";

/** The message a Greeting gets when it names none. */
export const DEFAULT_MESSAGE = "Hello";

/** The Service in front of the webhook server, in the operator's namespace. */
export const WEBHOOK_SERVICE = "greeting-webhooks";

/** The paths the webhook server answers on. */
export const WEBHOOK_PATHS = {
  default: "/default-greeting",
  validate: "/validate-greeting",
} as const;

/**
 * The webhooks by path, for a `WebhookServer`.
 *
 * @example
 * ```ts
 * import { greetingWebhooks, WEBHOOK_PATHS } from "./webhooks.ts";
 *
 * const webhooks = greetingWebhooks();
 * if (!(WEBHOOK_PATHS.validate in webhooks)) throw new Error("no validation");
 * ```
 *
 * What a handler throws (a bug: the request is denied) goes to the
 * server's logger.
 *
 * @returns The defaulting and the validating webhook, by path.
 */
export function greetingWebhooks(): Record<string, Webhook> {
  return {
    [WEBHOOK_PATHS.default]: mutating<Greeting>(({ object }) => {
      if (!object) return;
      // A Greeting written without a spec at all gets one too.
      const spec = (object.spec ?? {}) as Partial<Greeting["spec"]>;
      if (spec.message === undefined) spec.message = DEFAULT_MESSAGE;
      (object as { spec: unknown }).spec = spec;
    }, { name: WEBHOOK_PATHS.default }),
    [WEBHOOK_PATHS.validate]: validating<Greeting>(({ object }, context) => {
      const message = object?.spec?.message;
      if (typeof message !== "string") return; // the schema's to refuse
      if (message.trim() === "") {
        throw new Denied("spec.message must not be empty or only spaces");
      }
      if (message !== message.trim()) {
        context.warn("spec.message has spaces around it");
      }
    }, { name: WEBHOOK_PATHS.validate }),
  };
}

/**
 * The webhooks as the manifests describe them: Greetings on create and
 * update, `Fail` (a Greeting must not slip past its checks), no side
 * effects.
 *
 * @example
 * ```ts
 * import { GREETING_WEBHOOKS } from "./webhooks.ts";
 *
 * if (GREETING_WEBHOOKS.length !== 2) throw new Error("two webhooks");
 * ```
 */
export const GREETING_WEBHOOKS: readonly WebhookManifest[] = [
  {
    type: "mutating",
    name: `default.${GREETING.resource}.${GREETING.group}`,
    path: WEBHOOK_PATHS.default,
    rules: [rule()],
    failurePolicy: "Fail",
    sideEffects: "None",
    timeoutSeconds: 5,
  },
  {
    type: "validating",
    name: `validate.${GREETING.resource}.${GREETING.group}`,
    path: WEBHOOK_PATHS.validate,
    rules: [rule()],
    failurePolicy: "Fail",
    sideEffects: "None",
    timeoutSeconds: 5,
  },
];

function rule(): WebhookManifest["rules"][number] {
  return {
    apiGroups: [GREETING.group],
    apiVersions: [GREETING.version],
    resources: [GREETING.resource],
    operations: ["CREATE", "UPDATE"],
  };
}
