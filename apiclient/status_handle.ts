/**
 * {@linkcode StatusClient}: the `status` subresource of a collection's
 * objects, from `ResourceClient.status`.
 *
 * @module
 */
import type {
  ApplyOptions,
  GetOptions,
  PatchOptions,
  WriteOptions,
} from "./options.ts";
import type { PathClient } from "./path_client.ts";
import { objectPath, type Resource } from "./resource.ts";
import type { KubeObject } from "./types.ts";
import { checked, named, target } from "./_scope.ts";
import { noted } from "./_memo.ts";

/**
 * The `status` subresource of a collection's objects, from
 * {@linkcode ResourceClient.status}: reads and writes that touch only the
 * status. Namespaces follow the same rules as the collection's handle. The
 * object written should state `apiVersion` and `kind` (a copy from a list
 * may lack them).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Client, type KubeObject } from "@liken/kubernetes/apiclient";
 * import { FakeApiServer } from "@liken/kubernetes/testing";
 *
 * interface Pod extends KubeObject {
 *   spec?: { containers: unknown[] };
 *   status?: { phase?: string };
 * }
 *
 * await using server = new FakeApiServer();
 * const client = new Client(server.url, { fetch: server.fetch });
 * const pods = client.resource<Pod>({ version: "v1", resource: "pods" }).namespace("default");
 * const pod = await pods.create({
 *   apiVersion: "v1", kind: "Pod", metadata: { name: "p" },
 *   spec: { containers: [{ name: "app", image: "nginx" }] },
 * });
 * await pods.status.replace({ ...pod, status: { phase: "Running" } });
 * assert.equal((await pods.status.get("p")).status?.phase, "Running");
 * ```
 *
 * @typeParam T The kind of the collection's objects.
 */
export class StatusClient<T extends KubeObject = KubeObject> {
  #client: PathClient;
  #resource: Resource;

  /**
   * Makes the status handle of `resource` (`ResourceClient.status` does).
   *
   * @param client The client to send through.
   * @param resource The collection.
   * @throws {TypeError} When a resource with `namespaced: false` names a
   * namespace.
   */
  constructor(client: PathClient, resource: Resource) {
    this.#client = client;
    this.#resource = checked(resource);
  }

  /**
   * Reads an object through its status subresource.
   *
   * @param name The object's name.
   * @param options The `Accept` header and a signal.
   * @returns The object.
   */
  async get(name: string, options: GetOptions = {}): Promise<T> {
    const ref = named(this.#resource, name, "status get");
    return await this.#client.get<T>(objectPath(ref, "status"), options);
  }

  /**
   * Writes the object's status (PUT to its status subresource), conditional
   * on its `metadata.resourceVersion` when it states one, and answers the
   * server's copy, which the caller uses for its next write. The answer is a
   * new object: `object` is never changed, so after a failure the caller
   * still holds the status the server did not take.
   *
   * @param object The object with the status to write.
   * @param options Dry run, field validation, field manager and a signal.
   * @returns The server's copy.
   */
  async replace(object: T, options: WriteOptions = {}): Promise<T> {
    const ref = target(this.#resource, object, "status replace");
    const path = objectPath(ref, "status");
    return await noted(
      this.#client.memo,
      ref,
      options,
      () => this.#client.replace(path, object, options),
    );
  }

  /**
   * Patches the object's status subresource.
   *
   * @param name The object's name.
   * @param patch The patch document, such as `{ status: { ready: true } }`.
   * @param options The dialect, field manager, force, dry run, field
   * validation and a signal.
   * @returns The server's copy.
   */
  async patch(
    name: string,
    patch: unknown,
    options: PatchOptions,
  ): Promise<T> {
    const ref = named(this.#resource, name, "status patch");
    return await noted(
      this.#client.memo,
      ref,
      options,
      () => this.#client.patch<T>(objectPath(ref, "status"), patch, options),
    );
  }

  /**
   * Server-side apply of the object's status (with `apiVersion`, `kind`,
   * `metadata.name` and the `status` this manager owns).
   *
   * @typeParam A The applied configuration's type.
   * @param object The applied configuration.
   * @param options The field manager (required), force, dry run, field
   * validation and a signal.
   * @returns The server's copy.
   * @throws {TypeError} When `fieldManager` is empty.
   */
  async apply<A extends KubeObject>(
    object: A,
    options: ApplyOptions,
  ): Promise<T> {
    const ref = target(this.#resource, object, "status apply");
    return await noted(
      this.#client.memo,
      ref,
      options,
      () => this.#client.apply<T>(objectPath(ref, "status"), object, options),
    );
  }
}
