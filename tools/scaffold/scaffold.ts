// The scaffold: `init` makes a new operator project (a resource, its
// controller and test, main.ts with the Manager, the manifests task, a
// Dockerfile, a README, a deno.json with a test task), and `add` adds another
// resource and controller to a project `init` made. See README.md here.
//
//   deno task scaffold:init DIR --kind=Widget [--group=example.com]
//     [--version=v1alpha1] [--plural=widgets] [--name=DIR's name]
//     [--local=PATH of a checkout of this library]
//   deno task scaffold:add DIR --kind=Gadget [--group=…] [--version=…]
//
// The templates are text imports, so the program reads nothing but the
// project it extends.
import { basename, join, resolve } from "node:path";
import readmeTemplate from "./templates/project/README.md.tmpl" with {
  type: "text",
};
import mainTemplate from "./templates/project/main.ts.tmpl" with {
  type: "text",
};
import operatorTemplate from "./templates/project/operator.ts.tmpl" with {
  type: "text",
};
import operatorTestTemplate from "./templates/project/operator_test.ts.tmpl" with {
  type: "text",
};
import manifestsTemplate from "./templates/project/manifests.ts.tmpl" with {
  type: "text",
};
import manifestsTestTemplate from "./templates/project/manifests_test.ts.tmpl" with {
  type: "text",
};
import deploymentTemplate from "./templates/project/deployment.yaml.tmpl" with {
  type: "text",
};
import dockerfileTemplate from "./templates/project/Dockerfile.tmpl" with {
  type: "text",
};
import dockerignoreTemplate from "./templates/project/dockerignore.tmpl" with {
  type: "text",
};
import resourceTemplate from "./templates/resource/resource.ts.tmpl" with {
  type: "text",
};
import controllerTemplate from "./templates/resource/controller.ts.tmpl" with {
  type: "text",
};
import controllerTestTemplate from "./templates/resource/controller_test.ts.tmpl" with {
  type: "text",
};

/** What users import: the published package. */
export const LIBRARY = "jsr:@liken/kubernetes@^0.1";
/** The package's name, as the generated code imports it. */
export const PACKAGE = "@liken/kubernetes";
/** Where `add` inserts; `init` writes them into `operator.ts`. */
export const MARKERS = {
  imports: "// scaffold:imports",
  resources: "// scaffold:resources",
  controllers: "// scaffold:controllers",
} as const;

/** The resource `init` starts with and `add` adds. */
export interface ResourceOptions {
  /** The kind, in PascalCase (`Widget`, `CronTab`). */
  kind: string;
  /** The API group. Default: the group of the project's first resource. */
  group?: string | undefined;
  /** The version. Default `v1alpha1`. */
  version?: string | undefined;
  /** The plural (the URL's resource). Default: the kind's, lower case. */
  plural?: string | undefined;
}

/** Options of {@linkcode init}. */
export interface InitOptions extends ResourceOptions {
  /** The operator's name (Lease, ServiceAccount). Default: the folder's. */
  name?: string | undefined;
  /**
   * A checkout of this library to use instead of the published package:
   * the generated `deno.json` links it (`"links"`), which needs no network.
   */
  local?: string | undefined;
}

/** The names a kind gives the generated code. */
export interface Names {
  /** `CronTab` */
  kind: string;
  /** `CRON_TAB`: the resource's constant. */
  constant: string;
  /** `cronTab`: the controller function's prefix. */
  camel: string;
  /** `cron_tab`: the file names. */
  snake: string;
  /** `cron-tab`: the controller's name (metrics, field manager). */
  dashed: string;
  /** `crontabs` */
  plural: string;
}

// Names the templates use: a kind with one of them would clash.
const RESERVED = new Set([
  "Client",
  "Condition",
  "Controller",
  "ControllerOptions",
  "FakeApiServer",
  "Manager",
  "ReconcileContext",
]);

/** The names of `kind`; throws a TypeError for a kind that cannot be one. */
export function namesOf(kind: string, plural?: string): Names {
  if (!/^[A-Z][A-Za-z0-9]{0,61}$/.test(kind)) {
    throw new TypeError(
      `Kind ${JSON.stringify(kind)} is not a PascalCase name such as Widget`,
    );
  }
  if (RESERVED.has(kind) || RESERVED.has(`${kind}Controller`)) {
    throw new TypeError(`Kind ${kind} clashes with a name the templates use`);
  }
  const words = kind.match(/[A-Z]+(?![a-z])|[A-Z][a-z0-9]*/g)!.map((w) =>
    w.toLowerCase()
  );
  const lower = kind.toLowerCase();
  const plural_ = plural ??
    (/(s|x|z|ch|sh)$/.test(lower)
      ? `${lower}es`
      : /[^aeiou]y$/.test(lower)
      ? `${lower.slice(0, -1)}ies`
      : `${lower}s`);
  if (!/^[a-z][a-z0-9]*$/.test(plural_)) {
    throw new TypeError(`Plural ${JSON.stringify(plural_)} is not lower case`);
  }
  return {
    kind,
    constant: words.join("_").toUpperCase(),
    camel: words[0] +
      words.slice(1).map((w) => w[0]!.toUpperCase() + w.slice(1))
        .join(""),
    snake: words.join("_"),
    dashed: words.join("-"),
    plural: plural_,
  };
}

function check(what: string, value: string, pattern: RegExp): string {
  if (!pattern.test(value)) {
    throw new TypeError(`${what} ${JSON.stringify(value)} is not valid`);
  }
  return value;
}

const NAME = /^[a-z0-9]([-a-z0-9]{0,50}[a-z0-9])?$/;
const GROUP =
  /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+$/;
const VERSION = /^v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$/;

function fill(template: string, values: Record<string, string>): string {
  return template.replaceAll(/__([A-Za-z_]+?)__/g, (whole, key: string) => {
    const value = values[key];
    if (value === undefined) throw new Error(`Template key ${whole} unknown`);
    return value;
  });
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

async function write(dir: string, path: string, text: string): Promise<void> {
  const full = join(dir, path);
  await Deno.mkdir(join(full, ".."), { recursive: true });
  await Deno.writeTextFile(full, text, { createNew: true });
}

/** The generated deno.json. */
function denoJson(local: string | undefined): string {
  const config = {
    imports: { [PACKAGE]: LIBRARY },
    ...(local === undefined ? {} : { links: [local] }),
    compilerOptions: { strict: true, noUncheckedIndexedAccess: true },
    test: { sanitizeOps: true, sanitizeResources: true },
    tasks: {
      test: "deno test",
      check: "deno fmt --check && deno lint && deno check .",
      manifests:
        "deno run --allow-write=manifests manifests.ts && deno fmt manifests",
      start:
        "deno run --allow-net --allow-read --allow-env=KUBECONFIG,HOME,KUBERNETES_SERVICE_HOST,KUBERNETES_SERVICE_PORT,POD_NAME,POD_NAMESPACE,WATCH_NAMESPACE main.ts",
    },
  };
  return JSON.stringify(config, null, 2) + "\n";
}

/**
 * Makes a new operator project in `dir` (absent or empty) with one resource
 * and its controller.
 *
 * @returns The files written, relative to `dir`.
 */
export async function init(
  dir: string,
  options: InitOptions,
): Promise<string[]> {
  const name = check("Name", options.name ?? basename(resolve(dir)), NAME);
  let local: string | undefined;
  if (options.local !== undefined) {
    local = resolve(options.local);
    const config = JSON.parse(
      await Deno.readTextFile(join(local, "deno.json")),
    ) as { name?: string };
    if (config.name !== PACKAGE) {
      throw new TypeError(`${local} is not a checkout of ${PACKAGE}`);
    }
  }
  if (await exists(dir)) {
    for await (const _ of Deno.readDir(dir)) {
      throw new Error(`${dir} is not empty`);
    }
  }
  const values = { name };
  const files: [string, string][] = [
    ["deno.json", denoJson(local)],
    [
      "README.md",
      fill(readmeTemplate, values) + (local === undefined ? "" : [
        "",
        "## The library",
        "",
        `\`deno.json\` links \`${PACKAGE}\` to a checkout of it (\`links\`), in place of`,
        "the published package:",
        "",
        "```",
        local,
        "```",
        "",
        "Remove `links` to use the published package (and before building the image: the",
        "build cannot see the checkout).",
        "",
      ].join("\n")),
    ],
    ["main.ts", fill(mainTemplate, values)],
    ["operator.ts", fill(operatorTemplate, values)],
    ["operator_test.ts", fill(operatorTestTemplate, values)],
    ["manifests.ts", fill(manifestsTemplate, values)],
    ["manifests_test.ts", fill(manifestsTestTemplate, values)],
    ["manifests/deployment.yaml", fill(deploymentTemplate, values)],
    ["Dockerfile", fill(dockerfileTemplate, values)],
    [".dockerignore", fill(dockerignoreTemplate, values)],
  ];
  for (const [path, text] of files) await write(dir, path, text);
  const added = await add(dir, {
    ...options,
    group: options.group ?? "example.com",
  });
  return [...files.map(([path]) => path), ...added];
}

/**
 * Adds a resource and its controller (and the controller's test) to a
 * project {@linkcode init} made, and lists them in its `operator.ts`.
 *
 * @returns The files written or changed, relative to `dir`.
 */
export async function add(
  dir: string,
  options: ResourceOptions,
): Promise<string[]> {
  const names = namesOf(options.kind, options.plural);
  const operatorPath = join(dir, "operator.ts");
  const operator = await Deno.readTextFile(operatorPath).catch(() => {
    throw new Error(`${dir} has no operator.ts: is it a scaffolded project?`);
  });
  const name = operator.match(/export const OPERATOR = "([^"]+)"/)?.[1];
  for (const marker of Object.values(MARKERS)) {
    if (name === undefined || !operator.includes(marker)) {
      throw new Error(`${operatorPath} lacks the line ${marker}`);
    }
  }
  const group = check(
    "Group",
    options.group ?? await firstGroup(dir) ?? "example.com",
    GROUP,
  );
  const version = check("Version", options.version ?? "v1alpha1", VERSION);
  const resource = `resources/${names.snake}.ts`;
  const controller = `controllers/${names.snake}.ts`;
  const test = `controllers/${names.snake}_test.ts`;
  for (const path of [resource, controller, test]) {
    if (await exists(join(dir, path))) {
      throw new Error(`${join(dir, path)} exists: ${names.kind} is there`);
    }
  }
  const values = {
    name: name!,
    group,
    version,
    Kind: names.kind,
    CONST: names.constant,
    camel: names.camel,
    snake: names.snake,
    dashed: names.dashed,
    plural: names.plural,
  };
  const updated = insert(operator, {
    [MARKERS.imports]: [
      `import { ${names.constant} } from "./${resource}";`,
      `import { ${names.camel}Controller } from "./${controller}";`,
    ],
    [MARKERS.resources]: [`${names.constant},`],
    [MARKERS.controllers]: [`${names.camel}Controller(each),`],
  });
  await write(dir, resource, fill(resourceTemplate, values));
  await write(dir, controller, fill(controllerTemplate, values));
  await write(dir, test, fill(controllerTestTemplate, values));
  await Deno.writeTextFile(operatorPath, updated);
  return [resource, controller, test, "operator.ts"];
}

/** `text` with `lines` before each marker's line, at its indentation. */
function insert(text: string, lines: Record<string, string[]>): string {
  return text.split("\n").flatMap((line) => {
    const marker = Object.keys(lines).find((m) => line.trim() === m);
    if (marker === undefined) return [line];
    const indent = line.slice(0, line.indexOf(marker));
    return [...lines[marker]!.map((l) => indent + l), line];
  }).join("\n");
}

/** The group of the project's first resource, if any. */
async function firstGroup(dir: string): Promise<string | undefined> {
  const files: string[] = [];
  try {
    for await (const entry of Deno.readDir(join(dir, "resources"))) {
      if (entry.isFile && entry.name.endsWith(".ts")) files.push(entry.name);
    }
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
  const first = files.sort()[0];
  if (first === undefined) return undefined;
  const text = await Deno.readTextFile(join(dir, "resources", first));
  return text.match(/group: "([^"]+)"/)?.[1];
}

function parse(args: string[]): {
  command: string | undefined;
  dir: string | undefined;
  flags: Record<string, string>;
} {
  const flags: Record<string, string> = {};
  const rest: string[] = [];
  for (const arg of args) {
    const match = arg.match(/^--([a-z]+)=(.*)$/);
    if (match) flags[match[1]!] = match[2]!;
    else if (arg.startsWith("-")) throw new TypeError(`Unknown flag ${arg}`);
    else rest.push(arg);
  }
  return { command: rest[0], dir: rest[1], flags };
}

const USAGE = `Usage:
  scaffold.ts init DIR --kind=Widget [--group=example.com] [--version=v1alpha1]
                       [--plural=widgets] [--name=NAME] [--local=CHECKOUT]
  scaffold.ts add DIR --kind=Gadget [--group=GROUP] [--version=v1alpha1]
                      [--plural=gadgets]`;

if (import.meta.main) {
  // deno-lint-ignore no-console
  const say = (line: string): void => console.log(line);
  try {
    const { command, dir, flags } = parse(Deno.args);
    if (dir === undefined || flags.kind === undefined) {
      throw new TypeError("A directory and --kind are needed");
    }
    // A task runs in the checkout; INIT_CWD is where it was started.
    let base = Deno.cwd();
    try {
      base = Deno.env.get("INIT_CWD") ?? base;
    } catch {
      // Not granted: the working directory.
    }
    const target = resolve(base, dir);
    const known = new Set(["kind", "group", "version", "plural"]);
    if (command === "init") ["name", "local"].forEach((f) => known.add(f));
    const unknown = Object.keys(flags).filter((f) => !known.has(f));
    if (unknown.length > 0) throw new TypeError(`Unknown flag --${unknown[0]}`);
    const resource = {
      kind: flags.kind,
      group: flags.group,
      version: flags.version,
      plural: flags.plural,
    };
    let written: string[];
    if (command === "init") {
      written = await init(target, {
        ...resource,
        name: flags.name,
        local: flags.local === undefined
          ? undefined
          : resolve(base, flags.local),
      });
    } else if (command === "add") written = await add(target, resource);
    else throw new TypeError(`Unknown command ${command ?? "(none)"}`);
    for (const path of written) say(`wrote ${join(target, path)}`);
    // Long names can push a line past the width: format when allowed.
    const run = { name: "run", command: "deno" } as const;
    if (Deno.permissions.querySync(run).state === "granted") {
      await new Deno.Command("deno", {
        args: ["fmt", "--quiet", ...new Set(written)],
        cwd: target,
      }).output();
    }
    say(`Next: cd ${target} && deno task test`);
  } catch (error) {
    say(`${(error as Error).message}\n\n${USAGE}`);
    Deno.exit(1);
  }
}
