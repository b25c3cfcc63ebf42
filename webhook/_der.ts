// A minimal ASN.1 DER writer (ITU-T X.690), enough for X.509 certificates
// (RFC 5280): each function answers the complete encoding (tag, length,
// content) of one value.

/** Bytes. */
export type Bytes = Uint8Array<ArrayBuffer>;

function concat(parts: readonly Uint8Array[]): Bytes {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

function length(n: number): Bytes {
  if (n < 0x80) return Uint8Array.of(n);
  const bytes: number[] = [];
  for (let rest = n; rest > 0; rest = Math.floor(rest / 256)) {
    bytes.unshift(rest & 0xff);
  }
  return Uint8Array.of(0x80 | bytes.length, ...bytes);
}

/** A value of the tag byte `tag` with `content`. */
export function tlv(tag: number, content: Uint8Array): Bytes {
  return concat([Uint8Array.of(tag), length(content.length), content]);
}

/** SEQUENCE of the encoded `parts`. */
export function sequence(...parts: Uint8Array[]): Bytes {
  return tlv(0x30, concat(parts));
}

/** SET of the encoded `parts` (given in DER order). */
export function set(...parts: Uint8Array[]): Bytes {
  return tlv(0x31, concat(parts));
}

/** A constructed, context-specific tag `[n]` (EXPLICIT) around `parts`. */
export function explicit(n: number, ...parts: Uint8Array[]): Bytes {
  return tlv(0xa0 | n, concat(parts));
}

/** A primitive, context-specific tag `[n]` (IMPLICIT) with `content`. */
export function implicit(n: number, content: Uint8Array): Bytes {
  return tlv(0x80 | n, content);
}

/** BOOLEAN. */
export function boolean(value: boolean): Bytes {
  return tlv(0x01, Uint8Array.of(value ? 0xff : 0x00));
}

/**
 * INTEGER from big-endian unsigned bytes (or a small non-negative number):
 * leading zeros dropped, a zero added where the high bit is set.
 */
export function integer(value: number | Uint8Array): Bytes {
  let bytes: number[];
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new RangeError(`Not a non-negative integer: ${value}`);
    }
    bytes = [];
    for (let rest = value; rest > 0; rest = Math.floor(rest / 256)) {
      bytes.unshift(rest & 0xff);
    }
  } else bytes = [...value];
  while (bytes.length > 1 && bytes[0] === 0) bytes.shift();
  if (bytes.length === 0) bytes = [0];
  if (bytes[0]! & 0x80) bytes.unshift(0);
  return tlv(0x02, Uint8Array.from(bytes));
}

/** OBJECT IDENTIFIER from its dotted form, such as `2.5.4.3`. */
export function oid(dotted: string): Bytes {
  const arcs = dotted.split(".").map(Number);
  if (arcs.length < 2 || arcs.some((a) => !Number.isSafeInteger(a) || a < 0)) {
    throw new RangeError(`Not an object identifier: ${dotted}`);
  }
  const out: number[] = [];
  const first = arcs[0]! * 40 + arcs[1]!;
  for (const arc of [first, ...arcs.slice(2)]) {
    const base128: number[] = [arc & 0x7f];
    for (
      let rest = Math.floor(arc / 128);
      rest > 0;
      rest = Math.floor(rest / 128)
    ) {
      base128.unshift(0x80 | (rest & 0x7f));
    }
    out.push(...base128);
  }
  return tlv(0x06, Uint8Array.from(out));
}

/** UTF8String. */
export function utf8(text: string): Bytes {
  return tlv(0x0c, new TextEncoder().encode(text));
}

/** OCTET STRING. */
export function octets(content: Uint8Array): Bytes {
  return tlv(0x04, content);
}

/**
 * BIT STRING of whole bytes (`unused` trailing bits of the last byte are
 * not part of it).
 */
export function bits(content: Uint8Array, unused = 0): Bytes {
  return tlv(0x03, concat([Uint8Array.of(unused), content]));
}

/**
 * A named-bit BIT STRING (X.509 `KeyUsage`) with the bits numbered from
 * the first byte's high bit set, trailing zero bits dropped as DER asks.
 */
export function namedBits(set: readonly number[]): Bytes {
  if (set.length === 0) return bits(new Uint8Array(0));
  const top = Math.max(...set);
  const content = new Uint8Array(Math.floor(top / 8) + 1);
  for (const bit of set) content[bit >> 3]! |= 0x80 >> (bit & 7);
  return bits(content, 7 - (top & 7));
}

/**
 * An X.509 `Time`: UTCTime through 2049, GeneralizedTime from 2050 (RFC
 * 5280 §4.1.2.5), to the second, in UTC.
 */
export function time(date: Date): Bytes {
  const iso = date.toISOString(); // 2026-12-04T03:25:06.000Z
  const digits = iso.slice(0, 19).replace(/[-T:]/g, "") + "Z";
  const year = date.getUTCFullYear();
  if (year < 1950 || year > 9999) {
    throw new RangeError(`Not a certificate time: ${iso}`);
  }
  const encoder = new TextEncoder();
  return year < 2050
    ? tlv(0x17, encoder.encode(digits.slice(2)))
    : tlv(0x18, encoder.encode(digits));
}

/** The PEM text of DER `der` under `label`, such as `CERTIFICATE`. */
export function pem(label: string, der: Uint8Array): string {
  let binary = "";
  for (const byte of der) binary += String.fromCharCode(byte);
  const lines = btoa(binary).match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${
    lines.join("\n")
  }\n-----END ${label}-----\n`;
}
