// The Greeting's CEL rule as a client sees it, the same on the fake and on
// a real kube-apiserver (examples/greeting_test.ts and
// testing/real/validation_rules_test.ts run it on each).
import assert from "node:assert/strict";
import { ApiError, type Client } from "../apiclient/mod.ts";
import type { Greeting } from "./greeting.ts";
import { greetingPath, newGreeting } from "./samples.ts";

/** The Status of a refused farewell named `name` saying `message`. */
function refused(name: string, message: string): unknown {
  const detail = `Invalid value: a Greeting greets: ${message} is a farewell`;
  return {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: `Greeting.demo.liken.dev "${name}" is invalid: spec: ${detail}`,
    reason: "Invalid",
    details: {
      name,
      group: "demo.liken.dev",
      kind: "Greeting",
      causes: [{ reason: "FieldValueInvalid", message: detail, field: "spec" }],
    },
    code: 422,
  };
}

async function statusOf(write: Promise<unknown>): Promise<unknown> {
  try {
    await write;
  } catch (error) {
    if (error instanceof ApiError) return error.statusObject;
    throw error;
  }
  assert.fail("the write was taken");
}

/**
 * Creates a farewell (refused), a greeting (taken), then updates it into a
 * farewell (refused), asserting the API server's answers.
 */
export async function greetingRuleAnswers(
  client: Client,
  namespace: string,
): Promise<void> {
  assert.deepEqual(
    await statusOf(
      client.create(greetingPath(namespace), newGreeting("bye", "Goodbye")),
    ),
    refused("bye", "Goodbye"),
  );
  const hello = await client.create<Greeting>(
    greetingPath(namespace),
    newGreeting("hello", "Hello"),
  );
  assert.equal(hello.spec.message, "Hello");
  assert.deepEqual(
    await statusOf(
      client.replace(greetingPath(namespace, "hello"), {
        ...hello,
        spec: { message: "GOODBYE" },
      }),
    ),
    refused("hello", "GOODBYE"),
  );
}
