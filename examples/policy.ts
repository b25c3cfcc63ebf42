/**
 * The admission policy the example operator ships beside its CRD: a
 * Greeting's message must not be blank. The CRD's schema requires the
 * field but cannot refuse one made of spaces; a ValidatingAdmissionPolicy
 * can, on every write, without a webhook. `deno task manifests` writes it
 * to `examples/manifests/policies.yaml`.
 *
 * @module
 */
import { validatingPolicy } from "../manifests/mod.ts";
import { GREETING } from "./greeting.ts";

/** The policy's (and its binding's) name. */
export const MESSAGE_POLICY = "greeting-message.demo.liken.dev";

/** What the API server answers about a blank message. */
export const BLANK_MESSAGE = "the message must not be blank";

/** The policy and its binding. */
export const GREETING_POLICY: ReturnType<typeof validatingPolicy> =
  validatingPolicy({
    name: MESSAGE_POLICY,
    resources: [GREETING],
    validations: [{
      expression: "!object.spec.message.matches('^\\\\s*$')",
      message: BLANK_MESSAGE,
    }],
  });
