// A deterministic measure of a decoder's work, for the tests that guard its
// complexity: a wall clock on a loaded machine swings by several times, a
// count of the characters handed to the builtins does not.

type Method = (this: unknown, ...args: never[]) => unknown;

/**
 * Runs `fn` and answers the characters and bytes that user code handed, while
 * it ran, to the builtins that scan, copy or decode a text: `indexOf` and
 * `includes` (the characters scanned), `slice`, `substring`, `concat` and
 * `join` (the characters copied out), `TextDecoder.decode` and
 * `Uint8Array.set` (the bytes), and `JSON.parse` (the characters parsed).
 * The runtime's own streams call captured copies of the builtins, so only the
 * code under test is counted. A decoder that scans or copies what it already
 * holds on every read shows a count that grows with the square of the input.
 */
export async function work(fn: () => Promise<void>): Promise<number> {
  let total = 0;
  const restores: (() => void)[] = [];
  const wrap = <O extends object>(
    owner: O,
    name: keyof O & string,
    cost: (self: never, args: never[], result: never) => number,
  ): void => {
    // Uint8Array's `set` is inherited: shadowed here, then the shadow goes.
    const own = Object.getOwnPropertyDescriptor(owner, name);
    const original = owner[name] as Method;
    Object.defineProperty(owner, name, {
      configurable: true,
      writable: true,
      value: function (this: unknown, ...args: never[]): unknown {
        const result = original.apply(this, args);
        total += cost(this as never, args, result as never);
        return result;
      },
    });
    restores.push(() => {
      if (own === undefined) delete owner[name];
      else Object.defineProperty(owner, name, own);
    });
  };
  // What a search scans: up to the match, else to the end (an upper bound for
  // `includes`, which answers no position).
  const scanned = (
    self: string,
    [search, from]: [string, number | undefined],
    found: number | boolean,
  ): number => {
    const start = Math.max(0, Math.min(from ?? 0, self.length));
    return typeof found === "number" && found >= 0
      ? found - start + String(search).length
      : self.length - start;
  };
  const copied = (_: unknown, __: unknown, result: string): number =>
    result.length;
  wrap(String.prototype, "indexOf", scanned as never);
  wrap(String.prototype, "includes", scanned as never);
  wrap(String.prototype, "slice", copied);
  wrap(String.prototype, "substring", copied);
  wrap(String.prototype, "concat", copied);
  wrap(Array.prototype, "join", copied);
  wrap(
    TextDecoder.prototype,
    "decode",
    ((_: TextDecoder, [input]: [BufferSource | undefined]) =>
      input?.byteLength ?? 0) as never,
  );
  wrap(
    Uint8Array.prototype,
    "set",
    ((_: Uint8Array, [source]: [ArrayLike<number>]) => source.length) as never,
  );
  wrap(JSON, "parse", ((_: JSON, [text]: [string]) => text.length) as never);
  try {
    await fn();
  } finally {
    for (const restore of restores.reverse()) restore();
  }
  return total;
}
