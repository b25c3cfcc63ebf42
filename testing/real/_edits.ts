/**
 * A user's edits of the Greetings of one chaos seed, in the order they are
 * made. Each edit reads and replaces every Greeting, sent again through an
 * outage of the API server (see `retried`); the next edit starts only once
 * the one before has ended. Run at once, an edit still retrying through an
 * outage could read the value of a later edit, once the server is back, and
 * write its older message over it: the Greetings would end on that message
 * and never on the last one, and no replica could converge to the last.
 *
 * @module
 */

import type { Client } from "../../apiclient/mod.ts";
import type { Greeting } from "../../examples/greeting.ts";
import { greetingPath } from "../../examples/samples.ts";
import { retried } from "./_eventually.ts";

/** The edits of the Greetings `g0` … `g<count - 1>` of one namespace. */
export class GreetingEdits {
  #client: Client;
  #namespace: string;
  #count: number;
  #last: Promise<void> = Promise.resolve();

  /**
   * @param client The user's client.
   * @param namespace The Greetings' namespace.
   * @param count How many Greetings (`g0` onwards).
   */
  constructor(client: Client, namespace: string, count: number) {
    this.#client = client;
    this.#namespace = namespace;
    this.#count = count;
  }

  /**
   * Sets every Greeting's message, after every edit made before this one
   * has ended (succeeded or given up).
   *
   * @param message The new message.
   * @returns Resolves once every Greeting says it; rejects when a Greeting
   * could not be updated within `retried`'s bound.
   */
  set(message: string): Promise<void> {
    const edit = this.#last.then(() => this.#setAll(message));
    this.#last = edit.catch(() => {});
    return edit;
  }

  async #setAll(message: string): Promise<void> {
    for (let i = 0; i < this.#count; i++) {
      const path = greetingPath(this.#namespace, `g${i}`);
      // Read again after a conflict or a restart's refusal.
      await retried(`update g${i}`, async () => {
        const greeting = await this.#client.get<Greeting>(path);
        await this.#client.replace(path, { ...greeting, spec: { message } });
      });
    }
  }
}
