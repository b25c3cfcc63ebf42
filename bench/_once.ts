// Runs every `Deno.bench` once, for the gate (`tools/gate.ts`): `deno
// bench` has no tiny mode (it measures until the figures settle), and a
// bench that no longer runs should fail CI in seconds. Import this module
// first, then the bench files, then call `runOnce()`: it replaces
// `Deno.bench` with a recorder, so the files register without running.

type Fn = (b: Deno.BenchContext) => void | Promise<void>;
interface Recorded {
  name: string;
  fn: Fn;
  ignore: boolean;
}

const recorded: Recorded[] = [];

function record(
  first: string | Fn | Deno.BenchDefinition | Omit<Deno.BenchDefinition, "fn">,
  second?: Fn | Omit<Deno.BenchDefinition, "fn" | "name">,
  third?: Fn,
): void {
  let name = "";
  let fn: Fn | undefined;
  let ignore = false;
  for (const part of [first, second, third]) {
    if (typeof part === "string") name = part;
    else if (typeof part === "function") {
      fn = part;
      name ||= part.name;
    } else if (part !== undefined) {
      const options = part as Partial<Deno.BenchDefinition>;
      name = options.name ?? name;
      ignore = options.ignore ?? ignore;
      if (options.fn) fn = options.fn as Fn;
    }
  }
  if (fn === undefined) throw new Error(`Bench "${name}" has no function`);
  recorded.push({ name, fn, ignore });
}

(Deno as { bench: unknown }).bench = record;

/** Runs each recorded bench once; answers how many ran. */
export async function runOnce(origin: string): Promise<number> {
  let ran = 0;
  for (const bench of recorded) {
    if (bench.ignore) continue;
    const context: Deno.BenchContext = {
      name: bench.name,
      origin,
      start(): void {},
      end(): void {},
    };
    const started = performance.now();
    await bench.fn(context);
    ran++;
    // deno-lint-ignore no-console
    console.log(
      `${bench.name} ... ran once (${
        (performance.now() - started).toFixed(0)
      } ms)`,
    );
  }
  return ran;
}
