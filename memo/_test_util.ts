/** Lets the microtask queue run dry, with no timer involved. */
export async function flush(): Promise<void> {
  for (let i = 0; i < 50; i++) await Promise.resolve();
}
