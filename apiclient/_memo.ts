// The hook of a client bound to a memo (Client.withMemo): each write and
// each get of the resource-scoped handles takes its turn in the memo's line
// for the object and notes the resourceVersion the server answers.

import type { Memo, ObjectRef } from "./resource.ts";
import type { KubeObject } from "./types.ts";

/**
 * Sends `request`, a write or a get of `ref`, through `memo` when there is
 * one: a dry run and a nameless create (generateName) are not in line; a
 * nameless create notes its answer under the name the server gave.
 */
export async function noted<A>(
  memo: Memo | undefined,
  ref: ObjectRef,
  options: { dryRun?: "All" | undefined; signal?: AbortSignal | undefined },
  request: () => Promise<A>,
): Promise<A> {
  if (memo === undefined || options.dryRun === "All") return await request();
  const signal = options.signal === undefined ? {} : { signal: options.signal };
  if (!ref.name) {
    const answer = await request();
    const name = (answer as KubeObject | undefined)?.metadata?.name;
    const version = versionOf(answer);
    if (name) await memo.send({ ...ref, name }, () => Promise.resolve(version));
    return answer;
  }
  let answer: A | undefined;
  await memo.send(ref, async () => {
    answer = await request();
    return versionOf(answer);
  }, signal);
  return answer as A;
}

// A bare Status (a delete that completed) carries no version: noted as
// unknown, so only a fresh read is trusted afterwards.
function versionOf(answer: unknown): string {
  const object = answer as KubeObject | undefined;
  return object?.kind === "Status"
    ? ""
    : object?.metadata?.resourceVersion ?? "";
}
