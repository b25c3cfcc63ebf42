/**
 * What the chaos tests share: how many seeds to run, from where, and the
 * seeded randomness that makes a seed replay.
 *
 * Not part of the package: tests only.
 *
 * @module
 */

/**
 * A number from `--name=N` after `--`, else from the environment variable
 * `variable` (when the test may read it), else `fallback`.
 *
 * @param name The flag's name, such as `seeds`.
 * @param variable The environment variable, such as `CHAOS_SEEDS`.
 * @param fallback The number without either.
 * @returns The number.
 */
export function chaosSetting(
  name: string,
  variable: string,
  fallback: number,
): number {
  const arg = Deno.args.find((a) => a.startsWith(`--${name}=`));
  if (arg !== undefined) return Number(arg.slice(name.length + 3));
  const allowed =
    Deno.permissions.querySync({ name: "env", variable }).state === "granted";
  const value = allowed ? Deno.env.get(variable) : undefined;
  const number = value ? Number(value) : NaN;
  return Number.isSafeInteger(number) && number >= 0 ? number : fallback;
}

/**
 * A small deterministic random source (mulberry32), so a seed replays.
 *
 * @param seed Any 32-bit integer.
 * @returns A function like `Math.random`.
 */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Seeds every random source the library and the fake draw from, until
 * disposed: `Math.random` (the jitter of backoffs, watch timeouts and the
 * election's retries), `crypto.getRandomValues` (the suffix of an election
 * identity) and `crypto.randomUUID` (the fake's uids). The library reads
 * them at call time, so a chaos seed replays: the same requests at the same
 * fake instants. Each gets its own stream, apart from the test's own draws
 * (`seeded(seed)`), so a test that draws more does not shift the jitter.
 *
 * @param seed The chaos seed.
 * @returns What restores the real sources.
 */
export function seedRandomness(seed: number): Disposable {
  const real = {
    random: Math.random,
    hadValues: Object.hasOwn(crypto, "getRandomValues"),
    hadUuid: Object.hasOwn(crypto, "randomUUID"),
    values: crypto.getRandomValues,
    uuid: crypto.randomUUID,
  };
  Math.random = seeded(seed ^ 0x2545f491);
  const bytes = seeded(seed ^ 0x5bd1e995);
  const fill = <T extends ArrayBufferView | null>(array: T): T => {
    if (array === null) return array;
    const view = new Uint8Array(
      array.buffer,
      array.byteOffset,
      array.byteLength,
    );
    for (let i = 0; i < view.length; i++) {
      view[i] = Math.floor(bytes() * 256);
    }
    return array;
  };
  const uuid = (): `${string}-${string}-${string}-${string}-${string}` => {
    const hex = [...fill(new Uint8Array(16))].map((b, i) =>
      // Version 4, variant 10, as crypto.randomUUID makes them.
      (i === 6 ? (b & 0x0f) | 0x40 : i === 8 ? (b & 0x3f) | 0x80 : b)
        .toString(16).padStart(2, "0")
    ).join("");
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${
      hex.slice(16, 20)
    }-${hex.slice(20)}`;
  };
  Object.defineProperty(crypto, "getRandomValues", {
    value: fill,
    configurable: true,
    writable: true,
  });
  Object.defineProperty(crypto, "randomUUID", {
    value: uuid,
    configurable: true,
    writable: true,
  });
  return {
    [Symbol.dispose](): void {
      Math.random = real.random;
      const target = crypto as unknown as Record<string, unknown>;
      if (real.hadValues) target.getRandomValues = real.values;
      else delete target.getRandomValues;
      if (real.hadUuid) target.randomUUID = real.uuid;
      else delete target.randomUUID;
    },
  };
}
