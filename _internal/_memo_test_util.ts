// A write noted in a memo by hand, for tests in several folders that set up
// what the memo knows (a memo-bound client does this for its own writes).
import type { ObjectRef } from "../apiclient/resource.ts";
import type { Versions } from "../memo/versions.ts";

/**
 * Sends `request` (a write of `ref` made any way, such as a path-based
 * call) in its turn in `versions` and notes the version it answers, as a
 * memo-bound client's handle does (Client.withMemo): for tests that set up
 * what the memo knows.
 */
export async function written<
  T extends { metadata?: { resourceVersion?: string } },
>(
  ref: ObjectRef,
  request: () => Promise<T>,
  options: { versions?: Versions | undefined },
): Promise<T> {
  const { versions } = options;
  if (versions === undefined) return await request();
  let answer: T | undefined;
  await versions.send(ref, async () => {
    answer = await request();
    return answer?.metadata?.resourceVersion ?? "";
  });
  return answer!;
}
