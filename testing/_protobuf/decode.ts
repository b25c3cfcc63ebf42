/**
 * Protobuf request bodies of built-in kinds, read into the JSON a JSON client
 * would have sent for the same object.
 *
 * A body is the `k8s\x00` envelope around a runtime.Unknown (typeMeta, raw,
 * contentEncoding, contentType); raw is the object's proto2 message from the
 * release's generated.proto. The JSON is what the Go types write once decoded:
 * their JSON names and omitempty rules (a field the message lacks is the Go
 * zero value), not proto3's JSON mapping.
 *
 * @module
 */
import { KINDS, MESSAGES, type ProtoField } from "./data.ts";

/** The media type of protobuf bodies. */
export const PROTOBUF = "application/vnd.kubernetes.protobuf";

const MAGIC = [0x6b, 0x38, 0x73, 0x00];

/** A body the decoder cannot read; `unsupported` when it is well formed but of no built-in kind. */
export class ProtobufError extends Error {
  /** Whether the body names a kind (or an encoding) the decoder has not. */
  readonly unsupported: boolean;
  /** Makes one. */
  constructor(message: string, unsupported = false) {
    super(message);
    this.name = "ProtobufError";
    this.unsupported = unsupported;
  }
}

/** One field of a message as it is on the wire. */
export type WireValue =
  | { wire: 0; value: bigint }
  | { wire: 1 | 2 | 5; value: Uint8Array };

/** Reads a varint at `at`: its value and the offset after it. */
export function readVarint(
  bytes: Uint8Array,
  at: number,
): [value: bigint, next: number] {
  let value = 0n;
  let i = at;
  for (let shift = 0n; i < bytes.length && shift < 70n; shift += 7n) {
    const byte = bytes[i++]!;
    value |= BigInt(byte & 0x7f) << shift;
    if (byte < 0x80) return [BigInt.asUintN(64, value), i];
  }
  throw new ProtobufError(
    at >= bytes.length || bytes.length - at < 10
      ? "unexpected EOF"
      : "proto: integer overflow",
  );
}

/**
 * Splits a message into its fields by number, in wire order. Groups are
 * refused, as gogo's generated Unmarshal refuses them.
 */
export function readFields(bytes: Uint8Array): Map<number, WireValue[]> {
  const fields = new Map<number, WireValue[]>();
  let at = 0;
  while (at < bytes.length) {
    const [key, afterKey] = readVarint(bytes, at);
    at = afterKey;
    const number = Number(key >> 3n);
    const wire = Number(key & 7n);
    if (number <= 0) {
      throw new ProtobufError(
        `proto: illegal tag ${number} (wire type ${wire})`,
      );
    }
    let value: WireValue;
    if (wire === 0) {
      const [v, next] = readVarint(bytes, at);
      at = next;
      value = { wire, value: v };
    } else if (wire === 1 || wire === 5 || wire === 2) {
      let length = wire === 1 ? 8 : 4;
      if (wire === 2) {
        const [n, next] = readVarint(bytes, at);
        at = next;
        if (n > BigInt(bytes.length - at)) {
          throw new ProtobufError("unexpected EOF");
        }
        length = Number(n);
      }
      if (at + length > bytes.length) throw new ProtobufError("unexpected EOF");
      value = { wire, value: bytes.subarray(at, at + length) };
      at += length;
    } else {
      throw new ProtobufError(
        `proto: wrong wireType = ${wire} for field ${number}`,
      );
    }
    const list = fields.get(number);
    if (list) list.push(value);
    else fields.set(number, [value]);
  }
  return fields;
}

const utf8 = new TextDecoder();

function base64(bytes: Uint8Array): string {
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(text);
}

const SCALARS = new Set([
  "s",
  "b",
  "i32",
  "i64",
  "u32",
  "u64",
  "z64",
  "f64",
  "f32",
  "y",
]);
const VARINTS = new Set(["b", "i32", "i64", "u32", "u64", "z64"]);

function fromVarint(type: string, v: bigint): number | boolean {
  switch (type) {
    case "b":
      return v !== 0n;
    case "i32":
      return Number(BigInt.asIntN(32, v));
    case "u32":
      return Number(BigInt.asUintN(32, v));
    case "u64":
      return Number(v);
    case "z64":
      return Number((v >> 1n) ^ -(v & 1n));
    default:
      return Number(BigInt.asIntN(64, v));
  }
}

function wrongWire(type: string, value: WireValue, field: number): never {
  throw new ProtobufError(
    `proto: wrong wireType = ${value.wire} for field ${field} (${type})`,
  );
}

/** One scalar of a (not packed) wire value. */
function scalar(type: string, value: WireValue, field: number): unknown {
  if (VARINTS.has(type)) {
    if (value.wire !== 0) wrongWire(type, value, field);
    return fromVarint(type, value.value);
  }
  if (type === "f64" || type === "f32") {
    if (value.wire !== (type === "f64" ? 1 : 5)) wrongWire(type, value, field);
    const bytes = value.value as Uint8Array;
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    return type === "f64" ? view.getFloat64(0, true) : view.getFloat32(0, true);
  }
  if (value.wire !== 2) wrongWire(type, value, field);
  return type === "s" ? utf8.decode(value.value) : base64(value.value);
}

/** The elements of a repeated scalar, packed or not. */
function repeatedScalars(
  type: string,
  values: WireValue[],
  field: number,
): unknown[] {
  const out: unknown[] = [];
  for (const value of values) {
    if (value.wire === 2 && type !== "s" && type !== "y") {
      // Packed: one length-delimited run of varints or fixed values.
      const bytes = value.value;
      let at = 0;
      while (at < bytes.length) {
        if (VARINTS.has(type)) {
          const [v, next] = readVarint(bytes, at);
          at = next;
          out.push(fromVarint(type, v));
        } else {
          const size = type === "f64" ? 8 : 4;
          if (at + size > bytes.length) {
            throw new ProtobufError("unexpected EOF");
          }
          out.push(scalar(type, {
            wire: size === 8 ? 1 : 5,
            value: bytes.subarray(at, at + size),
          }, field));
          at += size;
        }
      }
    } else {
      out.push(scalar(type, value, field));
    }
  }
  return out;
}

function messageBytes(
  type: string,
  values: WireValue[],
  field: number,
): Uint8Array {
  // A message field seen more than once merges: its encodings concatenate.
  if (values.length === 1) {
    const only = values[0]!;
    if (only.wire !== 2) wrongWire(type, only, field);
    return only.value;
  }
  const parts = values.map((value) => {
    if (value.wire !== 2) wrongWire(type, value, field);
    return value.value;
  });
  const out = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

function int64(fields: Map<number, WireValue[]>, number: number): bigint {
  const values = fields.get(number);
  const last = values?.[values.length - 1];
  if (last === undefined) return 0n;
  if (last.wire !== 0) wrongWire("int64", last, number);
  return BigInt.asIntN(64, last.value);
}

function lastString(
  fields: Map<number, WireValue[]>,
  number: number,
): string | undefined {
  const values = fields.get(number);
  const last = values?.[values.length - 1];
  if (last === undefined) return undefined;
  if (last.wire !== 2) wrongWire("string", last, number);
  return utf8.decode(last.value);
}

function lastBytes(
  fields: Map<number, WireValue[]>,
  number: number,
): Uint8Array | undefined {
  const values = fields.get(number);
  const last = values?.[values.length - 1];
  if (last === undefined) return undefined;
  if (last.wire !== 2) wrongWire("bytes", last, number);
  return last.value;
}

/** Go's time.Duration String: "1h2m3.5s", "1.5ms", "0s". */
export function goDuration(ns: bigint): string {
  if (ns === 0n) return "0s";
  const sign = ns < 0n ? "-" : "";
  const u = ns < 0n ? -ns : ns;
  const fraction = (rest: bigint, digits: number): string => {
    const text = rest.toString().padStart(digits, "0").replace(/0+$/, "");
    return text === "" ? "" : `.${text}`;
  };
  if (u < 1000n) return `${sign}${u}ns`;
  if (u < 1_000_000n) return `${sign}${u / 1000n}${fraction(u % 1000n, 3)}µs`;
  if (u < 1_000_000_000n) {
    return `${sign}${u / 1_000_000n}${fraction(u % 1_000_000n, 6)}ms`;
  }
  const seconds = u / 1_000_000_000n;
  const tail = `${seconds % 60n}${fraction(u % 1_000_000_000n, 9)}s`;
  const minutes = seconds / 60n;
  if (minutes === 0n) return `${sign}${tail}`;
  if (minutes < 60n) return `${sign}${minutes}m${tail}`;
  return `${sign}${minutes / 60n}h${minutes % 60n}m${tail}`;
}

function rfc3339(seconds: bigint, micros?: bigint): string {
  const base = new Date(Number(seconds) * 1000).toISOString().slice(0, 19);
  if (micros === undefined) return `${base}Z`;
  return `${base}.${micros.toString().padStart(6, "0")}Z`;
}

/** A special type's JSON from its message bytes (`undefined`: absent). */
function special(type: string, bytes: Uint8Array | undefined): unknown {
  switch (type) {
    case "time":
    case "mtime": {
      // An empty Timestamp is the zero Time, which JSON writes as null.
      if (bytes === undefined || bytes.length === 0) return null;
      const fields = readFields(bytes);
      const seconds = int64(fields, 1);
      if (type === "time") return rfc3339(seconds); // Time keeps seconds only
      const nanos = BigInt.asIntN(32, int64(fields, 2));
      // MicroTime truncates nanos toward zero to µs; Go then normalizes
      // them into the second.
      const total = seconds * 1_000_000n + nanos / 1000n;
      let whole = total / 1_000_000n;
      if (total % 1_000_000n < 0n) whole -= 1n;
      return rfc3339(whole, total - whole * 1_000_000n);
    }
    case "dur":
      return goDuration(bytes === undefined ? 0n : int64(readFields(bytes), 1));
    case "qty": {
      // The sender's String(), as its JSON would say; the API server would
      // canonicalize it again on decode, the fake does not (nor for JSON).
      // A zero Quantity writes "0".
      const text = bytes === undefined
        ? undefined
        : lastString(readFields(bytes), 1);
      return text === undefined || text === "" ? "0" : text;
    }
    case "ios": {
      if (bytes === undefined) return 0;
      const fields = readFields(bytes);
      return int64(fields, 1) === 1n
        ? lastString(fields, 3) ?? ""
        : Number(BigInt.asIntN(32, int64(fields, 2)));
    }
    case "raw": {
      const raw = bytes === undefined
        ? undefined
        : lastBytes(readFields(bytes), 1);
      if (raw === undefined || raw.length === 0) return null;
      try {
        return JSON.parse(utf8.decode(raw));
      } catch {
        throw new ProtobufError("an embedded object is not JSON");
      }
    }
  }
  return undefined;
}

const SPECIALS = new Set(["time", "mtime", "dur", "qty", "ios", "raw"]);

function isWrapper(type: string): boolean {
  const fields = MESSAGES[type];
  return fields !== undefined && fields.length === 1 && fields[0]![4] === "w";
}

/** The JSON of one value of `type` from its wire values (none: the zero). */
function single(
  type: string,
  values: WireValue[] | undefined,
  field: number,
): unknown {
  if (SPECIALS.has(type)) {
    return special(
      type,
      values === undefined ? undefined : messageBytes(type, values, field),
    );
  }
  if (SCALARS.has(type)) {
    if (values === undefined) {
      return type === "s" ? "" : type === "b" ? false : type === "y" ? null : 0;
    }
    return scalar(type, values[values.length - 1]!, field);
  }
  return decodeMessage(
    type,
    values === undefined ? new Uint8Array() : messageBytes(type, values, field),
  );
}

/** Whether encoding/json's omitempty leaves the value out. */
function empty(shape: number, type: string, value: unknown): boolean {
  if (shape === 1) return value === null;
  if (shape === 2 || shape === 3 || isWrapper(type) || type === "y") {
    return value === null || Object.keys(value as object).length === 0;
  }
  // A struct (Time and Quantity among them) is never empty to encoding/json.
  if (!SCALARS.has(type)) return false;
  return value === "" || value === false || value === 0;
}

/** Decodes the message `type` (a name in the descriptors) into its JSON. */
export function decodeMessage(type: string, bytes: Uint8Array): unknown {
  const fields = MESSAGES[type];
  if (fields === undefined) throw new ProtobufError(`no message ${type}`, true);
  const wire = readFields(bytes);
  if (isWrapper(type)) {
    const [number, , , element] = fields[0]!;
    const values = wire.get(number);
    return values === undefined
      ? null
      : repeatedScalars(element, values, number);
  }
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    const [number, name, shape, fieldType, flags, valueType] =
      field as ProtoField;
    const values = number === 0 ? undefined : wire.get(number);
    let value: unknown;
    if (shape === 0) {
      value = single(fieldType, values, number);
    } else if (values === undefined) {
      value = null;
    } else if (shape === 1) {
      value = single(fieldType, values, number);
    } else if (shape === 2) {
      value = SCALARS.has(fieldType)
        ? repeatedScalars(fieldType, values, number)
        : values.map((one) => single(fieldType, [one], number));
    } else {
      const map: Record<string, unknown> = {};
      for (const entry of values) {
        const parts = readFields(messageBytes("map entry", [entry], number));
        const key = single(fieldType, parts.get(1), number);
        const item = single(valueType!, parts.get(2), number);
        // Generated Unmarshal starts a map value at []byte{} or an empty
        // list (ExtraValue{}), not nil: JSON writes "" and [].
        map[String(key)] = item !== null
          ? item
          : valueType === "y"
          ? ""
          : isWrapper(valueType!)
          ? []
          : item;
      }
      value = map;
    }
    if (flags.includes("i")) {
      if (value !== null && typeof value === "object") {
        Object.assign(out, value);
      }
      continue;
    }
    // A pointer that was sent is never empty, even to a zero Time (null).
    const sentPointer = shape === 1 && values !== undefined;
    if (flags.includes("o") && !sentPointer && empty(shape, fieldType, value)) {
      continue;
    }
    if (flags.includes("z") && value === null) continue;
    out[name] = value;
  }
  return out;
}

/** Whether a content type names protobuf. */
export function isProtobuf(contentType: string | null): boolean {
  return (contentType ?? "").split(";")[0]!.trim().toLowerCase() === PROTOBUF;
}

/**
 * The JSON object of a protobuf body: apiVersion and kind from the envelope,
 * the rest from its message. Throws {@linkcode ProtobufError}.
 */
export function decodeProtobufBody(bytes: Uint8Array): Record<string, unknown> {
  if (bytes.length < 4 || MAGIC.some((byte, i) => bytes[i] !== byte)) {
    throw new ProtobufError(
      "provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]",
    );
  }
  const unknown = readFields(bytes.subarray(4));
  const typeMeta = readFields(lastBytes(unknown, 1) ?? new Uint8Array());
  const apiVersion = lastString(typeMeta, 1) ?? "";
  const kind = lastString(typeMeta, 2) ?? "";
  const encoding = lastString(unknown, 3) ?? "";
  if (encoding !== "") {
    throw new ProtobufError(
      `a body in the content encoding ${JSON.stringify(encoding)}`,
      true,
    );
  }
  const type = kind === "DeleteOptions"
    ? KINDS[kind]
    : KINDS[`${apiVersion}/${kind}`];
  if (type === undefined) {
    throw new ProtobufError(
      `${apiVersion}/${kind} is not a built-in kind`,
      true,
    );
  }
  const object = decodeMessage(
    type,
    lastBytes(unknown, 2) ?? new Uint8Array(),
  ) as Record<string, unknown>;
  return { apiVersion, kind, ...object };
}
