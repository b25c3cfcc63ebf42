/** Lets the microtask queue run dry, with no timer involved. */
export async function flush(): Promise<void> {
  for (let i = 0; i < 50; i++) await Promise.resolve();
}

/**
 * Sends `request` (a write of `ref` made any way, such as a path-based
 * call) in its turn in `versions` and notes the version it answers, as a
 * memo-bound client's handle does (Client.withMemo): for tests that set up
 * what the memo knows.
 */
export async function written<
  T extends { metadata?: { resourceVersion?: string } },
>(
  ref: import("../apiclient/resource.ts").ObjectRef,
  request: () => Promise<T>,
  options: { versions?: import("./versions.ts").Versions | undefined },
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
