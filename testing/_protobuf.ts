/**
 * Protobuf request bodies of built-in kinds, as controller-runtime's typed
 * clients and kubectl's `create deployment` send them: the `k8s\x00`
 * envelope (a `runtime.Unknown` naming apiVersion and kind) around the
 * object's proto2 message, decoded into the JSON the Go types write: field
 * names as their JSON names, a zero the sender's Go type omits (`omitempty`
 * and not a pointer) left out, times as RFC 3339, quantities and
 * int-or-strings as their JSON forms (`_proto_data.ts`, from the release's
 * `generated.proto`).
 *
 * @module
 */
import { MESSAGES } from "./_proto_data.ts";

const MAGIC = [0x6b, 0x38, 0x73, 0x00];
const META = "k8s.io.apimachinery.pkg.apis.meta.v1";

/** The proto package of a group: `apps` → `k8s.io.api.apps.v1`. */
function packageOf(apiVersion: string): string | undefined {
  const [group, version] = apiVersion.includes("/")
    ? apiVersion.split("/") as [string, string]
    : ["", apiVersion];
  if (group === "meta.k8s.io") return `${META}`;
  const name = group === "" ? "core" : group.split(".")[0]!;
  return `k8s.io.api.${name}.${version}`;
}

/** The message of a built-in resource's kind, if the fake has it. */
export function protoMessage(
  resource: { group: string; version: string; kind: string },
): string | undefined {
  const pkg = packageOf(
    resource.group === ""
      ? resource.version
      : `${resource.group}/${resource.version}`,
  );
  const name = `${pkg}.${resource.kind}`;
  return name in MESSAGES ? name : undefined;
}

class Reader {
  #bytes: Uint8Array;
  pos = 0;
  constructor(bytes: Uint8Array) {
    this.#bytes = bytes;
  }
  get done(): boolean {
    return this.pos >= this.#bytes.length;
  }
  varint(): bigint {
    let out = 0n;
    let shift = 0n;
    for (;;) {
      if (this.pos >= this.#bytes.length) throw new Error("truncated varint");
      const b = this.#bytes[this.pos++]!;
      out |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return out;
      shift += 7n;
    }
  }
  take(n: number): Uint8Array {
    if (this.pos + n > this.#bytes.length) throw new Error("truncated field");
    const out = this.#bytes.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
}

type Raw = { wire: number; value: bigint | Uint8Array };

/** The fields of one message, by number, in order. */
function fields(bytes: Uint8Array): [number, Raw][] {
  const r = new Reader(bytes);
  const out: [number, Raw][] = [];
  while (!r.done) {
    const key = Number(r.varint());
    const wire = key & 7;
    const num = key >> 3;
    if (wire === 0) out.push([num, { wire, value: r.varint() }]);
    else if (wire === 2) {
      out.push([num, { wire, value: r.take(Number(r.varint())) }]);
    } else if (wire === 1) out.push([num, { wire, value: r.take(8) }]);
    else if (wire === 5) out.push([num, { wire, value: r.take(4) }]);
    else throw new Error(`unsupported wire type ${wire}`);
  }
  return out;
}

const text = new TextDecoder("utf-8", { fatal: true });

function scalar(type: string, raw: Raw): unknown {
  const v = raw.value;
  switch (type) {
    case "string":
      return text.decode(v as Uint8Array);
    case "bytes": {
      let s = "";
      for (const b of v as Uint8Array) s += String.fromCharCode(b);
      return btoa(s);
    }
    case "bool":
      return v !== 0n;
    case "double":
      return new DataView((v as Uint8Array).slice().buffer).getFloat64(0, true);
    case "float":
      return new DataView((v as Uint8Array).slice().buffer).getFloat32(0, true);
    case "int32":
      return Number(BigInt.asIntN(32, v as bigint));
    default:
      return Number(BigInt.asIntN(64, v as bigint));
  }
}

function two(n: number): string {
  return String(n).padStart(2, "0");
}

/** A `Time` or `MicroTime` ({seconds, nanos}) as Go writes it; zero is null. */
function time(bytes: Uint8Array, micro: boolean): string | null {
  let seconds = 0;
  let nanos = 0;
  for (const [num, raw] of fields(bytes)) {
    if (num === 1) seconds = Number(BigInt.asIntN(64, raw.value as bigint));
    if (num === 2) nanos = Number(raw.value);
  }
  if (seconds === 0 && nanos === 0) return null;
  const d = new Date(seconds * 1000);
  const base = `${d.getUTCFullYear()}-${two(d.getUTCMonth() + 1)}-${
    two(d.getUTCDate())
  }T${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${
    two(d.getUTCSeconds())
  }`;
  return micro
    ? `${base}.${String(Math.floor(nanos / 1000)).padStart(6, "0")}Z`
    : `${base}Z`;
}

/** A message of a type with its own JSON form, or `undefined`. */
function special(
  type: string,
  bytes: Uint8Array,
): { value: unknown } | undefined {
  switch (type) {
    case `${META}.Time`:
      return { value: time(bytes, false) };
    case `${META}.MicroTime`:
      return { value: time(bytes, true) };
    case "k8s.io.apimachinery.pkg.api.resource.Quantity": {
      const [, raw] = fields(bytes).find(([n]) => n === 1) ?? [];
      return { value: raw ? text.decode(raw.value as Uint8Array) : "0" };
    }
    case "k8s.io.apimachinery.pkg.util.intstr.IntOrString": {
      let kind = 0;
      let int = 0;
      let str = "";
      for (const [num, raw] of fields(bytes)) {
        if (num === 1) kind = Number(raw.value);
        if (num === 2) int = Number(BigInt.asIntN(32, raw.value as bigint));
        if (num === 3) str = text.decode(raw.value as Uint8Array);
      }
      return { value: kind === 1 ? str : int };
    }
    case "k8s.io.apimachinery.pkg.runtime.RawExtension":
    case `${META}.FieldsV1`: {
      const [, raw] = fields(bytes).find(([n]) => n === 1) ?? [];
      if (!raw) return { value: null };
      return { value: JSON.parse(text.decode(raw.value as Uint8Array)) };
    }
    case `${META}.Duration`: {
      const [, raw] = fields(bytes).find(([n]) => n === 1) ?? [];
      const ns = raw ? Number(BigInt.asIntN(64, raw.value as bigint)) : 0;
      return { value: duration(ns) };
    }
  }
  return undefined;
}

/** Go's `time.Duration.String()` for whole seconds and above. */
function duration(ns: number): string {
  if (ns === 0) return "0s";
  const s = ns / 1e9;
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  return `${h > 0 ? `${h}h` : ""}${h > 0 || m > 0 ? `${m}m` : ""}${sec}s`;
}

function zero(value: unknown): boolean {
  return value === "" || value === 0 || value === false || value === null ||
    (Array.isArray(value) && value.length === 0) ||
    (typeof value === "object" && value !== null &&
      Object.keys(value).length === 0);
}

/** One message as the Go type's JSON. */
function message(type: string, bytes: Uint8Array): unknown {
  const own = special(type, bytes);
  if (own) return own.value;
  const declared = MESSAGES[type];
  if (declared === undefined) throw new Error(`unknown message ${type}`);
  const out: Record<string, unknown> = {};
  for (const [num, raw] of fields(bytes)) {
    const field = declared[num];
    if (field === undefined) continue; // A field of a newer release.
    const [name, fieldType, repeated] = field;
    const map = fieldType.match(/^map<(\w+),(.+)>$/);
    if (map) {
      let key: unknown = "";
      let value: unknown = undefined;
      for (const [n, r] of fields(raw.value as Uint8Array)) {
        if (n === 1) key = scalar(map[1]!, r);
        if (n === 2) value = valueOf(map[2]!, r);
      }
      const entries = (out[name] ??= {}) as Record<string, unknown>;
      entries[String(key)] = value ?? (map[2] === "string" ? "" : null);
      continue;
    }
    if (repeated) {
      const list = (out[name] ??= []) as unknown[];
      if (
        raw.wire === 2 && fieldType !== "string" && fieldType !== "bytes" &&
        !(fieldType in MESSAGES) && !fieldType.includes(".")
      ) {
        // A packed list of numbers.
        const r = new Reader(raw.value as Uint8Array);
        while (!r.done) {
          list.push(scalar(fieldType, { wire: 0, value: r.varint() }));
        }
      } else list.push(valueOf(fieldType, raw));
      continue;
    }
    out[name] = valueOf(fieldType, raw);
  }
  // What Go's JSON encoding leaves out: an omitempty zero that is not a
  // pointer the sender set (a struct is never left out).
  for (
    const [, [name, fieldType, , omitempty, pointer]] of Object.entries(
      declared,
    )
  ) {
    if (!(name in out) || !omitempty || pointer) continue;
    const struct = fieldType in MESSAGES &&
      !special(fieldType, new Uint8Array());
    if (!struct && zero(out[name])) delete out[name];
  }
  return out;
}

function valueOf(type: string, raw: Raw): unknown {
  if (type in MESSAGES || special(type, new Uint8Array()) !== undefined) {
    return message(type, raw.value as Uint8Array);
  }
  return scalar(type, raw);
}

/**
 * The JSON object a protobuf body carries, or `undefined` when it is not
 * the envelope of a kind the fake knows.
 */
export function decodeProtobuf(
  bytes: Uint8Array,
): Record<string, unknown> | undefined {
  if (!MAGIC.every((b, i) => bytes[i] === b)) return undefined;
  try {
    let apiVersion = "";
    let kind = "";
    let raw: Uint8Array | undefined;
    for (const [num, f] of fields(bytes.subarray(4))) {
      if (num === 1) {
        for (const [n, r] of fields(f.value as Uint8Array)) {
          if (n === 1) apiVersion = text.decode(r.value as Uint8Array);
          if (n === 2) kind = text.decode(r.value as Uint8Array);
        }
      }
      if (num === 2) raw = f.value as Uint8Array;
    }
    const pkg = packageOf(apiVersion);
    if (raw === undefined || pkg === undefined) return undefined;
    const type = `${pkg}.${kind}`;
    if (!(type in MESSAGES)) return undefined;
    const object = message(type, raw) as Record<string, unknown>;
    return { apiVersion, kind, ...object };
  } catch {
    return undefined;
  }
}
