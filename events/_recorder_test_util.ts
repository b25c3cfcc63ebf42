/** Test helpers of the recorder's tests: a fetch that holds requests, a set-up recorder, counts. */

import { Client } from "../apiclient/mod.ts";
import type { FakeApiServer } from "../testing/mod.ts";
import { describe } from "../_internal/errors.ts";
import { type Event, Recorder, type RecorderOptions } from "./mod.ts";

export const START = Date.parse("2030-01-01T00:00:00.400Z");
export const machine = { kind: "Machine", name: "m1", uid: "u-1" };
export const pod = {
  apiVersion: "v1",
  kind: "Pod",
  namespace: "apps",
  name: "p1",
  uid: "u-2",
};
export const failed = {
  reason: "StepFailed",
  message: "The mount did not answer",
};

/**
 * A fetch that holds requests while closed, so a test can keep a write in
 * flight; an aborted request rejects at once, as a real one does.
 */
export class Gate {
  #inner: typeof fetch;
  #closed = false;
  #waiting = new Set<() => void>();
  /** Requests that reached the gate. */
  arrived = 0;

  constructor(inner: typeof fetch) {
    this.#inner = inner;
  }

  close(): void {
    this.#closed = true;
  }

  open(): void {
    this.#closed = false;
    for (const go of [...this.#waiting]) go();
  }

  get held(): number {
    return this.#waiting.size;
  }

  fetch: typeof fetch = (input, init) => {
    this.arrived++;
    if (!this.#closed) return this.#inner(input, init);
    const signal = init?.signal ?? undefined;
    return new Promise<Response>((resolve, reject) => {
      const go = (): void => {
        this.#waiting.delete(go);
        signal?.removeEventListener("abort", onAbort);
        resolve(this.#inner(input, init));
      };
      const onAbort = (): void => {
        this.#waiting.delete(go);
        reject(signal?.reason);
      };
      this.#waiting.add(go);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  };
}

export interface Setup {
  server: FakeApiServer;
  client: Client;
  gate: Gate;
  /** The log lines and the messages of the errors reported, in order. */
  logs: string[];
  /** The errors reported to onError. */
  errors: unknown[];
  recorder: Recorder;
}

export function setup(
  server: FakeApiServer,
  options: RecorderOptions = {},
): Setup {
  const gate = new Gate(server.fetch);
  const client = new Client(server.url, { fetch: gate.fetch });
  const logs: string[] = [];
  const errors: unknown[] = [];
  const recorder = new Recorder(client, "test-operator", {
    instance: "pod-1",
    log: (line) => logs.push(line),
    onError: (error) => {
      errors.push(error);
      logs.push(describe(error));
    },
    ...options,
  });
  return { server, client, gate, logs, errors, recorder };
}

export function posts(server: FakeApiServer): number {
  return server.requests.filter((r) =>
    r.method === "POST" && r.path.endsWith("/events")
  ).length;
}

export function patches(server: FakeApiServer): number {
  return server.requests.filter((r) =>
    r.method === "PATCH" && r.path.includes("/events/")
  ).length;
}

export function about(
  server: FakeApiServer,
  object: { kind: string; name: string; namespace?: string },
): Event[] {
  return server.eventsAbout(object) as unknown as Event[];
}
