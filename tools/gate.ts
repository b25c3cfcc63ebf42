// The gate, `deno task test`: runs every step this machine can, streams
// their output, and ends by listing each suite it could not run, why, and
// the command that runs it (lines that start with `NOT RUN: `, from
// tools/needs.ts, collected from every step's output). A suite not run is
// never counted as passed. CI mode (`LIKEN_CI=1`, which `.ci/run` sets)
// requires every suite: a suite not run fails the gate.
//
//   deno run --allow-run=deno,ln --allow-read --allow-write=.tmp --allow-env \
//     tools/gate.ts [--only=STEP,…] [-- ARGS for the unit suite]
//
// Steps: fmt, lint, check, doc-lint, setup (npm ci for the fidelity suite,
// when npm is on PATH), unit (`deno task test:unit`: unit, fake-server,
// differential, fidelity and real-server suites), unit-bytes (the
// informer, cache, memo, controller and sharding tests with every
// collection keeping bytes), envtest (a real-server suite on kube-apiserver
// and etcd laid out as setup-envtest does), counts, scaffold (a generated
// operator project's own checks and tests), publish (dry run), bench (every
// Deno.bench once), bench:latency, bench:scale and
// bench:shard (their --smoke runs), then only-deno: this gate again with
// go, cargo, node, npm and kubectl taken off PATH, on a few files and the
// envtest step, which must pass and list what it did not run. It runs every
// step even after a failure, so that one run shows every failure.
import { CI_ENV, NOT_RUN } from "./needs.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const CONFIG = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`)) as {
  exports: Record<string, string>;
  tasks: Record<string, string>;
  exclude: string[];
};
/** The tools the only-deno step takes off PATH. */
const DENIED = [
  "go",
  "gofmt",
  "cargo",
  "rustc",
  "rustup",
  "node",
  "nodejs",
  "npm",
  "npx",
  "corepack",
  "kubectl",
];
/** What the only-deno step runs: the suites that need those tools. */
const ONLY_DENO_FILES = [
  "tools/needs_test.ts",
  "testing/fidelity/fidelity_test.ts",
  "testing/real/",
];

function say(text: string): void {
  // deno-lint-ignore no-console
  console.log(text);
}

function flag(name: string): string | undefined {
  const prefix = `--${name}=`;
  return Deno.args.find((a) => a.startsWith(prefix))?.slice(prefix.length);
}

/** Where `name` is on PATH, or undefined. */
function which(name: string): string | undefined {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    if (dir === "") continue;
    try {
      const info = Deno.statSync(`${dir}/${name}`);
      if (info.isFile && (info.mode ?? 0o111) & 0o111) return `${dir}/${name}`;
    } catch {
      // Not in this directory.
    }
  }
  return undefined;
}

/** Deno as --allow-run=deno names it: the one on PATH. */
const DENO = which("deno") ?? Deno.execPath();

interface Result {
  step: string;
  ok: boolean;
  seconds: number;
  /** The NOT RUN lines the step printed. */
  notRun: string[];
  /** What it printed, when it was not streamed. */
  output?: string;
}

/** The NOT RUN line in `line`, without deno test's "... ignored (0ms)". */
function notRunIn(line: string): string | undefined {
  const at = line.indexOf(NOT_RUN);
  if (at === -1) return undefined;
  return line.slice(at).replace(/ \.\.\. ignored \(.*\)$/, "").trim();
}

/** Copies a child's stream to `sink` (if any), collecting NOT RUN lines. */
async function pump(
  stream: ReadableStream<Uint8Array>,
  sink: WritableStream<Uint8Array> | undefined,
  notRun: string[],
  text: string[],
): Promise<void> {
  const writer = sink?.getWriter();
  const decoder = new TextDecoder();
  let partial = "";
  for await (const chunk of stream) {
    await writer?.write(chunk);
    partial += decoder.decode(chunk, { stream: true });
    const lines = partial.split("\n");
    partial = lines.pop()!;
    for (const line of lines) {
      text.push(line);
      const found = notRunIn(line);
      if (found !== undefined) notRun.push(found);
    }
  }
  if (partial !== "") text.push(partial);
  writer?.releaseLock();
}

/** Runs `deno ARGS` as step `step`, streamed unless `quiet`. */
async function run(
  step: string,
  args: string[],
  options: {
    env?: Record<string, string>;
    clearEnv?: boolean;
    quiet?: boolean;
  } = {},
): Promise<Result> {
  say(`\n== ${step}: deno ${args.join(" ")}`);
  const started = performance.now();
  const child = new Deno.Command(DENO, {
    args,
    cwd: ROOT,
    env: options.env ?? {},
    clearEnv: options.clearEnv ?? false,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const notRun: string[] = [];
  const text: string[] = [];
  await Promise.all([
    pump(
      child.stdout,
      options.quiet ? undefined : Deno.stdout.writable,
      notRun,
      text,
    ),
    pump(
      child.stderr,
      options.quiet ? undefined : Deno.stderr.writable,
      notRun,
      text,
    ),
  ]);
  const { success } = await child.status;
  return {
    step,
    ok: success,
    seconds: (performance.now() - started) / 1000,
    notRun,
    ...(options.quiet ? { output: text.join("\n") } : {}),
  };
}

/** The files `deno bench` finds: `*_bench.ts` outside the excluded paths. */
async function benchFiles(): Promise<string[]> {
  const excluded = [".git/", "node_modules/", ...CONFIG.exclude];
  const found: string[] = [];
  async function walk(dir: string): Promise<void> {
    for await (const entry of Deno.readDir(`${ROOT}${dir}`)) {
      const path = `${dir}${entry.name}${entry.isDirectory ? "/" : ""}`;
      if (excluded.some((e) => path.startsWith(e) || path.includes(`/${e}`))) {
        continue;
      }
      if (entry.isDirectory) await walk(path);
      else if (/(^|[_.])bench\.ts$/.test(entry.name)) found.push(path);
    }
  }
  await walk("");
  return found.sort();
}

/**
 * The bench step: the `bench` task's own command and permissions, as
 * `deno run` of an entry that imports every bench file and runs each
 * bench once (bench/_once.ts).
 */
async function bench(): Promise<Result> {
  const files = await benchFiles();
  const entry = ".tmp/gate-bench-once.ts";
  await Deno.mkdir(`${ROOT}.tmp`, { recursive: true });
  await Deno.writeTextFile(
    `${ROOT}${entry}`,
    [
      `import { runOnce } from "../bench/_once.ts";`,
      ...files.map((f) => `import "../${f}";`),
      `const ran = await runOnce(import.meta.url);`,
      `console.log(\`bench: \${ran} benches of ${files.length} files ran once\`);`,
      // As deno bench does: the files' servers and timers end with it.
      `Deno.exit(0);`,
      "",
    ].join("\n"),
  );
  const [deno, sub, ...flags] = CONFIG.tasks.bench!.split(" ");
  if (deno !== "deno" || sub !== "bench") {
    throw new Error(`The bench task is not one deno bench command`);
  }
  return await run("bench", ["run", ...flags, entry]);
}

/**
 * The only-deno step: this gate, on the suites that need other tools,
 * with those tools off PATH and empty caches (no built control plane or
 * bench peers); it must pass and list them as not run.
 */
async function onlyDeno(): Promise<Result> {
  const dir = `${ROOT}.tmp/gate-only-deno`;
  await Deno.remove(dir, { recursive: true }).catch(() => {});
  const bin = `${dir}/bin`;
  await Deno.mkdir(bin, { recursive: true });
  await Deno.mkdir(`${dir}/cache`, { recursive: true });
  // A PATH of links to every program on PATH but the denied ones.
  const seen = new Set<string>();
  for (const path of (Deno.env.get("PATH") ?? "").split(":")) {
    let entries: Deno.DirEntry[];
    try {
      entries = await Array.fromAsync(Deno.readDir(path));
    } catch {
      continue;
    }
    const links: string[] = [];
    for (const entry of entries) {
      if (seen.has(entry.name) || DENIED.includes(entry.name)) continue;
      seen.add(entry.name);
      links.push(`${path}/${entry.name}`);
    }
    if (links.length === 0) continue;
    // `ln`, since Deno.symlink needs unscoped read and write permissions.
    const { success } = await new Deno.Command("ln", {
      args: ["-s", "-t", bin, ...links],
    }).output();
    if (!success) throw new Error(`Could not link the programs of ${path}`);
  }
  const info = await new Deno.Command(DENO, {
    args: ["info", "--json"],
    stdout: "piped",
  }).output();
  const denoDir = JSON.parse(new TextDecoder().decode(info.stdout)).denoDir;
  const env: Record<string, string> = {
    PATH: bin,
    HOME: Deno.env.get("HOME") ?? dir,
    DENO_DIR: denoDir,
    XDG_CACHE_HOME: `${dir}/cache`,
    LIKEN_CACHE: `${dir}/cache`,
    NO_COLOR: "1",
  };
  const result = await run("only-deno", [
    "run",
    ...PERMISSIONS,
    "tools/gate.ts",
    "--only=unit,envtest,bench:scale",
    "--",
    "--no-check",
    ...ONLY_DENO_FILES,
  ], { env, clearEnv: true, quiet: true });
  const output = result.output ?? "";
  const expected = [
    "NOT RUN: fidelity",
    'NOT RUN: real-server suite "library"',
    // Each with the colon that ends its name: "client-node" alone would
    // match "client-node 2" too.
    "NOT RUN: bench:scale peer kube-rs:",
    "NOT RUN: bench:scale peer client-go:",
    "NOT RUN: bench:scale peer client-node:",
    "NOT RUN: bench:scale peer client-node 2:",
  ];
  const listing = output.slice(output.lastIndexOf(LISTING));
  const missing = expected.filter((e) =>
    !output.includes(LISTING) || !listing.includes(e)
  );
  const passed = /^ok \| [1-9]\d* passed \| 0 failed/m.test(output);
  const ok = result.ok && missing.length === 0 && passed;
  say(
    ok
      ? `only-deno: without ${
        DENIED.join(", ")
      } on PATH the gate passed and listed ${
        listing.split("\n").filter((l) => l.includes(NOT_RUN)).length
      } suites not run (${result.seconds.toFixed(0)} s)`
      : `only-deno: FAILED (exit ${result.ok ? 0 : "non-zero"}, ${
        passed ? "" : "no test passed, "
      }missing from the listing: ${missing.join("; ") || "none"}):\n${
        output.split("\n").map((l) => `  > ${l}`).join("\n")
      }`,
  );
  return { ...result, ok, notRun: [] };
}

const PERMISSIONS = [
  "--allow-run=deno,ln",
  "--allow-read",
  "--allow-write=.tmp",
  "--allow-env",
];
const LISTING = "Not run here";

const ci = Deno.env.get(CI_ENV) === "1";
const only = flag("only")?.split(",");
const dash = Deno.args.indexOf("--");
const testArgs = dash === -1 ? [] : Deno.args.slice(dash + 1);
const exports = [...new Set(Object.values(CONFIG.exports))];

const steps: [string, () => Promise<Result | undefined>][] = [
  ["fmt", () => run("fmt", ["fmt", "--check"])],
  ["lint", () => run("lint", ["lint"])],
  ["check", () => run("check", ["check", "."])],
  ["doc-lint", () => run("doc-lint", ["doc", "--lint", ...exports])],
  // Without npm the fidelity suite lists itself as not run.
  [
    "setup",
    async () =>
      which("npm") && which("node")
        ? await run("setup", ["task", "setup"])
        : undefined,
  ],
  ["unit", () => run("unit", ["task", "test:unit", ...testArgs])],
  // The informer, cache, memo, controller and sharding tests again, every
  // collection keeping bytes (`storage: "bytes"`, issue #48).
  [
    "unit-bytes",
    () =>
      testArgs.length > 0 ? Promise.resolve(undefined) : run("unit-bytes", [
        "task",
        "test:bytes",
      ]),
  ],
  // A real-server suite on envtest's layout (KUBEBUILDER_ASSETS, else
  // kube-apiserver and etcd that tools/control-plane/envtest.sh builds).
  ["envtest", () => run("envtest", ["task", "test:envtest"])],
  ["counts", () => run("counts", ["task", "counts"])],
  ["scaffold", () => run("scaffold", ["task", "scaffold:check"])],
  ["publish", () => run("publish", ["publish", "--dry-run", "--allow-dirty"])],
  ["bench", bench],
  ...["bench:latency", "bench:scale", "bench:shard"].map((
    task,
  ): [string, () => Promise<Result>] => [
    task,
    () => run(task, ["task", task, "--smoke"]),
  ]),
  ["only-deno", onlyDeno],
];

const started = performance.now();
const results: Result[] = [];
for (const [name, step] of steps) {
  if (only !== undefined && !only.includes(name)) continue;
  const result = await step();
  if (result !== undefined) results.push(result);
}
const failed = results.filter((r) => !r.ok);
const notRun = [...new Set(results.flatMap((r) => r.notRun))];
say(
  `\n== gate: ${results.length} steps in ${
    ((performance.now() - started) / 1000).toFixed(0)
  } s: ${results.length - failed.length} passed, ${failed.length} failed${
    failed.length > 0 ? ` (${failed.map((r) => r.step).join(", ")})` : ""
  }${only === undefined ? "" : `; only ${only.join(", ")} asked for`}`,
);
for (const r of results) {
  say(`   ${r.ok ? "ok    " : "FAILED"} ${r.step} (${r.seconds.toFixed(0)} s)`);
}
if (notRun.length > 0) {
  say(
    `${LISTING} (${notRun.length}, not counted as passed${
      ci ? "; CI mode requires them, so the gate fails" : ""
    }):`,
  );
  for (const line of notRun) say(`  - ${line}`);
} else say("Every suite ran.");
Deno.exit(failed.length > 0 || (ci && notRun.length > 0) ? 1 : 0);
