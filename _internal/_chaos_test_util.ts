/**
 * What the chaos tests share: how many seeds to run, from where.
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
