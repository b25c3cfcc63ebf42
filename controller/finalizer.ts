// A finalizer around a reconcile, as kube-rs's `finalizer` helper: the
// finalizer is on the object before the first change to the world, and comes
// off only after the cleanup succeeded.
import type { Client } from "../apiclient/client.ts";
import { ConflictError, NotFoundError } from "../apiclient/errors.ts";
import { objectKey, type ObjectRef } from "../apiclient/resource.ts";
import type { KubeObject } from "../apiclient/types.ts";
import { freshGet, type MemoOptions } from "../memo/requests.ts";
import type { Action } from "./types.ts";
import { FINALIZER_ATTEMPTS } from "./_defaults.ts";

/**
 * The object a {@linkcode finalizer} guards, and how to write it: a
 * reconcile's context has all of it (`finalizer(context, { … })`).
 *
 * @typeParam T The kind of the object.
 */
export interface FinalizerTarget<T extends KubeObject> extends MemoOptions {
  /** The API client (with the write guard, in a controller). */
  client: Client;
  /** The object's ref. */
  ref: ObjectRef;
  /**
   * The object as the reconcile read it, or `undefined` when it is gone
   * (then nothing runs); its name and namespace must be those of `ref`.
   */
  object: T | undefined;
}

/**
 * Options of {@linkcode finalizer}.
 *
 * @typeParam T The kind of the object.
 */
export interface FinalizerOptions<T extends KubeObject> {
  /** The finalizer's name, such as `example.com/cleanup`. */
  name: string;
  /**
   * The reconcile of a live object; runs only once the finalizer is on it.
   *
   * @param object The object, with the finalizer.
   */
  apply: (object: T) => Action | void | Promise<Action | void>;
  /**
   * Undoes what `apply` did, for an object being deleted; the finalizer
   * comes off once it returns. A throw keeps the finalizer (and the object).
   *
   * @param object The object being deleted.
   */
  cleanup: (object: T) => Action | void | Promise<Action | void>;
}

/**
 * Runs `apply` or `cleanup` of an object behind a finalizer:
 *
 * - a live object without the finalizer gets it first (a merge patch that
 *   names the object's `resourceVersion`, so it never overwrites another
 *   writer's finalizers), then `apply` runs on the patched copy;
 * - a live object with it: `apply`;
 * - an object being deleted with the finalizer: `cleanup`, then the
 *   finalizer is removed the same careful way;
 * - an object being deleted without it, or gone: nothing (it was never
 *   applied, or its cleanup is done).
 *
 * A patch refused as stale (409) is tried again from a fresh read, up to
 * 5 times, and the decision is taken again
 * from that copy (a deletion that arrived meanwhile turns an add into a
 * cleanup).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Client } from "@liken/kubernetes/apiclient";
 * import { finalizer } from "@liken/kubernetes/controller";
 * import { FakeApiServer } from "@liken/kubernetes/testing";
 *
 * await using server = new FakeApiServer();
 * const client = new Client(server.url, { fetch: server.fetch });
 * const a = { version: "v1", resource: "configmaps", namespace: "default", name: "a" };
 * const made = await client.resource(a).create({ metadata: { name: "a" } });
 * const steps: string[] = [];
 * await finalizer({ client, ref: a, object: made }, {
 *   name: "example.com/cleanup",
 *   apply: () => void steps.push("apply"),
 *   cleanup: () => void steps.push("cleanup"),
 * });
 * const held = server.object("/api/v1/namespaces/default/configmaps/a");
 * assert.deepEqual(held?.metadata.finalizers, ["example.com/cleanup"]);
 * assert.deepEqual(steps, ["apply"]);
 * ```
 *
 * @typeParam T The kind of the object.
 * @param target The client, the object's ref and the object as read, the
 * memo and a signal: a reconcile's context.
 * @param options The finalizer's name, `apply` and `cleanup`.
 * @returns What `apply` or `cleanup` answered (`undefined` when nothing ran).
 * @throws {TypeError} When `object` is another object than `ref` names.
 */
export async function finalizer<T extends KubeObject>(
  target: FinalizerTarget<T>,
  options: FinalizerOptions<T>,
): Promise<Action> {
  const { client, ref, object } = target;
  const { name } = options;
  if (object === undefined) return undefined;
  if (objectKey(object) !== objectKey(ref)) {
    throw new TypeError(
      `The finalizer ${name} was given ${objectKey(object)} for ${
        objectKey(ref)
      } of ${ref.resource}`,
    );
  }
  let current = object;
  let cleaned: { action: Action } | undefined;
  let conflict: ConflictError | undefined;
  // Only the finalizer's own patches are retried on a conflict; what `apply`
  // and `cleanup` throw goes to the caller as it is.
  const patch = async (finalizers: string[]): Promise<T | "stale" | "gone"> => {
    try {
      return await patchFinalizers(client, ref, current, finalizers, target);
    } catch (error) {
      if (error instanceof ConflictError) {
        conflict = error;
        return "stale";
      }
      if (error instanceof NotFoundError) return "gone";
      throw error;
    }
  };
  for (let attempt = 1;; attempt++) {
    const finalizers = current.metadata.finalizers ?? [];
    const has = finalizers.includes(name);
    const deleting = current.metadata.deletionTimestamp !== undefined;
    if (deleting && !has) return cleaned?.action;
    if (!deleting && has) return (await options.apply(current)) ?? undefined;
    let answer: T | "stale" | "gone";
    if (deleting) {
      // A removal refused as stale is tried again without a second cleanup.
      cleaned ??= { action: (await options.cleanup(current)) ?? undefined };
      answer = await patch(finalizers.filter((f) => f !== name));
      if (typeof answer === "object" && !answer.metadata.finalizers?.length) {
        // The last finalizer is off: the server deletes the object, and
        // kube-apiserver answers its copy from before the removal (the old
        // resourceVersion), which the memo cannot tell from the cache's
        // stale copy. Reads go to the server until the watch drops it, or a
        // later reconcile would run the cleanup again.
        target.versions?.note(ref, "");
      }
      // Removed, or gone meanwhile: nothing is left to hold.
      if (answer !== "stale") return cleaned.action;
    } else {
      answer = await patch([...finalizers, name]);
      if (answer === "gone") return undefined;
      if (answer !== "stale") {
        current = answer;
        continue;
      }
    }
    if (attempt >= FINALIZER_ATTEMPTS) {
      throw new ConflictError(
        `The finalizer ${name} of ${
          objectKey(ref)
        } was refused as stale ${attempt} times`,
        {
          method: "PATCH",
          // The path the last refused patch was sent to.
          path: conflict?.path ?? "",
          status: 409,
          statusObject: conflict?.statusObject,
          cause: conflict,
        },
      );
    }
    try {
      current = await freshGet<T>(client, ref, target);
    } catch (error) {
      if (error instanceof NotFoundError) return cleaned?.action;
      throw error;
    }
  }
}

/** Sets the finalizers, refused (409) if the object changed since read. */
function patchFinalizers<T extends KubeObject>(
  client: Client,
  ref: ObjectRef,
  current: T,
  finalizers: string[],
  options: MemoOptions,
): Promise<T> {
  const { signal } = options;
  const patch = {
    metadata: {
      resourceVersion: current.metadata.resourceVersion,
      finalizers,
    },
  };
  const { versions } = options;
  const writer = versions === undefined ? client : client.withMemo(versions);
  return writer.resource<T>(ref).patch(ref.name, patch, {
    type: "merge",
    ...(signal === undefined ? {} : { signal }),
  });
}
