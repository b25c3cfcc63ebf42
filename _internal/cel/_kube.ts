/**
 * The Kubernetes CEL types (k8s.io/apiserver/pkg/cel/library): quantity,
 * URL, IP, CIDR, semver and format, with their functions and errors.
 *
 * @module
 */

import type { Environment } from "@marcbachmann/cel-js";
import { stringFormat } from "../schema/formats.ts";
import { celError } from "./_values.ts";

// ---------------------------------------------------------------- quantity

const QUANTITY = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/;
const BINARY: Record<string, number> = {
  Ki: 10,
  Mi: 20,
  Gi: 30,
  Ti: 40,
  Pi: 50,
  Ei: 60,
};
const DECIMAL: Record<string, number> = {
  n: -9,
  u: -6,
  m: -3,
  "": 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};

/** A resource quantity, held exactly as a fraction. */
class Quantity {
  readonly numerator: bigint;
  readonly denominator: bigint;
  constructor(numerator: bigint, denominator: bigint) {
    const g = gcd(numerator < 0n ? -numerator : numerator, denominator);
    this.numerator = numerator / (g || 1n);
    this.denominator = denominator / (g || 1n);
  }
  compareTo(other: Quantity): number {
    const left = this.numerator * other.denominator;
    const right = other.numerator * this.denominator;
    return left < right ? -1 : left > right ? 1 : 0;
  }
  equals(other: unknown): boolean {
    return other instanceof Quantity && this.compareTo(other) === 0;
  }
  plus(other: Quantity, sign: bigint): Quantity {
    return new Quantity(
      this.numerator * other.denominator +
        sign * other.numerator * this.denominator,
      this.denominator * other.denominator,
    );
  }
}

function gcd(a: bigint, b: bigint): bigint {
  while (b) [a, b] = [b, a % b];
  return a;
}

function parseQuantity(text: string): Quantity | undefined {
  const match = QUANTITY.exec(text);
  if (!match || text === "") return undefined;
  const number = match[1]!;
  const suffix = match[2]!;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)$/.test(number)) return undefined;
  let exponent10 = 0;
  let exponent2 = 0;
  if (suffix in BINARY) exponent2 = BINARY[suffix]!;
  else if (suffix in DECIMAL) exponent10 = DECIMAL[suffix]!;
  else if (/^[eE][-+]?\d+$/.test(suffix)) exponent10 = Number(suffix.slice(1));
  else return undefined;
  const negative = number.startsWith("-");
  const digits = number.replace(/^[+-]/, "");
  const [whole = "", fraction = ""] = digits.split(".");
  let numerator = BigInt((whole + fraction) || "0");
  let denominator = 10n ** BigInt(fraction.length);
  if (exponent10 >= 0) numerator *= 10n ** BigInt(exponent10);
  else denominator *= 10n ** BigInt(-exponent10);
  numerator *= 2n ** BigInt(exponent2);
  return new Quantity(negative ? -numerator : numerator, denominator);
}

const QUANTITY_ERROR =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

function quantities(environment: Environment): void {
  environment.registerType("kubernetes.Quantity", Quantity);
  environment.registerOperator(
    "kubernetes.Quantity == kubernetes.Quantity",
    (a: Quantity, b: Quantity) => a.equals(b),
  );
  environment.registerFunction(
    "quantity(string): kubernetes.Quantity",
    (text: string) => {
      const quantity = parseQuantity(text);
      if (!quantity) throw celError(QUANTITY_ERROR);
      return quantity;
    },
  );
  environment.registerFunction(
    "isQuantity(string): bool",
    (text: string) => parseQuantity(text) !== undefined,
  );
  const q = "kubernetes.Quantity";
  environment.registerFunction(
    `${q}.sign(): int`,
    (a: Quantity) => a.numerator < 0n ? -1n : a.numerator > 0n ? 1n : 0n,
  );
  environment.registerFunction(
    `${q}.isGreaterThan(${q}): bool`,
    (a: Quantity, b: Quantity) => a.compareTo(b) > 0,
  );
  environment.registerFunction(
    `${q}.isLessThan(${q}): bool`,
    (a: Quantity, b: Quantity) => a.compareTo(b) < 0,
  );
  environment.registerFunction(
    `${q}.compareTo(${q}): int`,
    (a: Quantity, b: Quantity) => BigInt(a.compareTo(b)),
  );
  environment.registerFunction(
    `${q}.add(${q}): ${q}`,
    (a: Quantity, b: Quantity) => a.plus(b, 1n),
  );
  environment.registerFunction(
    `${q}.add(int): ${q}`,
    (a: Quantity, b: bigint) => a.plus(new Quantity(b, 1n), 1n),
  );
  environment.registerFunction(
    `${q}.sub(${q}): ${q}`,
    (a: Quantity, b: Quantity) => a.plus(b, -1n),
  );
  environment.registerFunction(
    `${q}.sub(int): ${q}`,
    (a: Quantity, b: bigint) => a.plus(new Quantity(b, 1n), -1n),
  );
  environment.registerFunction(`${q}.isInteger(): bool`, (a: Quantity) => {
    return a.denominator === 1n && a.numerator >= -(2n ** 63n) &&
      a.numerator < 2n ** 63n;
  });
  environment.registerFunction(`${q}.asInteger(): int`, (a: Quantity) => {
    if (
      a.denominator !== 1n || a.numerator < -(2n ** 63n) ||
      a.numerator >= 2n ** 63n
    ) {
      throw celError("cannot convert value to integer");
    }
    return a.numerator;
  });
  environment.registerFunction(
    `${q}.asApproximateFloat(): double`,
    (a: Quantity) => Number(a.numerator) / Number(a.denominator),
  );
}

// --------------------------------------------------------------------- URL

/** A URL as Go's `url.ParseRequestURI` reads it. */
class KubeURL {
  constructor(
    readonly scheme: string,
    readonly host: string,
    readonly path: string,
    readonly query: string,
  ) {}
  equals(other: unknown): boolean {
    return other instanceof KubeURL && other.toString() === this.toString();
  }
  toString(): string {
    return `${this.scheme ? `${this.scheme}://` : ""}${this.host}${this.path}${
      this.query ? `?${this.query}` : ""
    }`;
  }
}

function parseURL(text: string): KubeURL {
  const withoutFragment = text;
  if (withoutFragment.startsWith("/")) {
    const [path = "", query = ""] = splitOnce(withoutFragment, "?");
    return new KubeURL("", "", path, query);
  }
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(withoutFragment);
  if (!scheme) {
    throw new Error(`parse "${text}": invalid URI for request`);
  }
  const rest = withoutFragment.slice(scheme[0].length);
  if (!rest.startsWith("//")) {
    if (rest.startsWith("/")) {
      const [path = "", query = ""] = splitOnce(rest, "?");
      return new KubeURL(scheme[1]!, "", path, query);
    }
    throw new Error(`parse "${text}": invalid URI for request`);
  }
  const afterSlashes = rest.slice(2);
  const end = afterSlashes.search(/[/?]/);
  const authority = end < 0 ? afterSlashes : afterSlashes.slice(0, end);
  const remainder = end < 0 ? "" : afterSlashes.slice(end);
  const host = authority.includes("@")
    ? authority.slice(authority.lastIndexOf("@") + 1)
    : authority;
  if (/\s/.test(host)) {
    throw new Error(`parse "${text}": invalid character " " in host name`);
  }
  const [path = "", query = ""] = splitOnce(remainder, "?");
  return new KubeURL(scheme[1]!, host, path, query);
}

function splitOnce(text: string, separator: string): [string, string] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, ""] : [text.slice(0, at), text.slice(at + 1)];
}

function hostname(host: string): string {
  if (host.startsWith("[")) {
    const end = host.indexOf("]");
    return end < 0 ? host : host.slice(1, end);
  }
  const colon = host.lastIndexOf(":");
  return colon < 0 ? host : host.slice(0, colon);
}

function port(host: string): string {
  const end = host.startsWith("[") ? host.indexOf("]") + 1 : 0;
  const colon = host.indexOf(":", end);
  return colon < 0 ? "" : host.slice(colon + 1);
}

function urls(environment: Environment): void {
  environment.registerType("kubernetes.URL", KubeURL);
  const u = "kubernetes.URL";
  environment.registerFunction(`url(string): ${u}`, (text: string) => {
    try {
      return parseURL(text);
    } catch (error) {
      throw celError(
        `URL parse error during conversion from string: ${
          (error as Error).message
        }`,
      );
    }
  });
  environment.registerFunction("isURL(string): bool", (text: string) => {
    try {
      parseURL(text);
      return true;
    } catch {
      return false;
    }
  });
  environment.registerFunction(
    `${u}.getScheme(): string`,
    (url: KubeURL) => url.scheme,
  );
  environment.registerFunction(
    `${u}.getHost(): string`,
    (url: KubeURL) => url.host,
  );
  environment.registerFunction(
    `${u}.getHostname(): string`,
    (url: KubeURL) => hostname(url.host),
  );
  environment.registerFunction(
    `${u}.getPort(): string`,
    (url: KubeURL) => port(url.host),
  );
  environment.registerFunction(
    `${u}.getEscapedPath(): string`,
    (url: KubeURL) => url.path,
  );
  environment.registerFunction(
    `${u}.getQuery(): map<string, list<string>>`,
    (url: KubeURL) => {
      const out = new Map<string, string[]>();
      for (const [key, value] of new URLSearchParams(url.query)) {
        out.set(key, [...(out.get(key) ?? []), value]);
      }
      return out;
    },
  );
}

// ------------------------------------------------------------------ IP, CIDR

/** An IP address: 4 or 16 bytes. */
class IP {
  constructor(readonly bytes: readonly number[]) {}
  get family(): 4 | 6 {
    return this.bytes.length === 4 ? 4 : 6;
  }
  equals(other: unknown): boolean {
    return other instanceof IP && other.bytes.length === this.bytes.length &&
      other.bytes.every((b, i) => b === this.bytes[i]);
  }
  toString(): string {
    if (this.family === 4) return this.bytes.join(".");
    const groups: number[] = [];
    for (let i = 0; i < 16; i += 2) {
      groups.push(this.bytes[i]! * 256 + this.bytes[i + 1]!);
    }
    // The longest run of two or more zero groups becomes `::`.
    let best = -1;
    let bestLength = 1;
    for (let i = 0; i < 8;) {
      if (groups[i] !== 0) {
        i++;
        continue;
      }
      let j = i;
      while (j < 8 && groups[j] === 0) j++;
      if (j - i > bestLength) [best, bestLength] = [i, j - i];
      i = j;
    }
    const hex = groups.map((g) => g.toString(16));
    if (best < 0) return hex.join(":");
    return `${hex.slice(0, best).join(":")}::${
      hex.slice(best + bestLength).join(":")
    }`;
  }
}

function parseIPv4(text: string): number[] | undefined {
  const parts = text.split(".");
  if (parts.length !== 4) return undefined;
  const bytes: number[] = [];
  for (const part of parts) {
    if (!/^(0|[1-9]\d{0,2})$/.test(part) || Number(part) > 255) {
      return undefined;
    }
    bytes.push(Number(part));
  }
  return bytes;
}

function parseIPv6(text: string): number[] | undefined {
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const groups = (part: string): number[] | undefined => {
    if (part === "") return [];
    const out: number[] = [];
    const pieces = part.split(":");
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i]!;
      if (i === pieces.length - 1 && piece.includes(".")) {
        const v4 = parseIPv4(piece);
        if (!v4) return undefined;
        out.push(...v4);
        continue;
      }
      if (!/^[0-9a-fA-F]{1,4}$/.test(piece)) return undefined;
      const value = parseInt(piece, 16);
      out.push(value >> 8, value & 255);
    }
    return out;
  };
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  if (!head || !tail) return undefined;
  if (halves.length === 1) return head.length === 16 ? head : undefined;
  if (head.length + tail.length > 14) return undefined;
  return [
    ...head,
    ...new Array(16 - head.length - tail.length).fill(0),
    ...tail,
  ];
}

function parseAddress(text: string): IP {
  if (text.includes("%")) {
    throw new Error(`IP address "${text}" with zone value is not allowed`);
  }
  const bytes = text.includes(":") ? parseIPv6(text) : parseIPv4(text);
  if (!bytes) {
    throw new Error(
      `IP Address "${text}" parse error during conversion from string: ParseAddr("${text}"): unable to parse IP`,
    );
  }
  if (
    bytes.length === 16 && bytes.slice(0, 10).every((b) => b === 0) &&
    bytes[10] === 255 && bytes[11] === 255
  ) {
    throw new Error(`IPv4-mapped IPv6 address "${text}" is not allowed`);
  }
  return new IP(bytes);
}

/** A network: an address and a prefix length. */
class CIDR {
  constructor(readonly ip: IP, readonly prefix: number) {}
  equals(other: unknown): boolean {
    return other instanceof CIDR && other.prefix === this.prefix &&
      other.ip.equals(this.ip);
  }
  masked(): CIDR {
    const bytes = this.ip.bytes.map((b, i) => {
      const bits = Math.max(0, Math.min(8, this.prefix - i * 8));
      return b & (0xff << (8 - bits)) & 0xff;
    });
    return new CIDR(new IP(bytes), this.prefix);
  }
  contains(ip: IP): boolean {
    if (ip.family !== this.ip.family) return false;
    const mine = this.masked().ip;
    return new CIDR(ip, this.prefix).masked().ip.equals(mine);
  }
  toString(): string {
    return `${this.ip}/${this.prefix}`;
  }
}

function parseCIDR(text: string): CIDR {
  const slash = text.indexOf("/");
  const fail = (): never => {
    throw new Error(
      `network address parse error during conversion from string: netip.ParsePrefix("${text}"): bad prefix`,
    );
  };
  if (slash < 0) return fail();
  const address = text.slice(0, slash);
  const bits = text.slice(slash + 1);
  if (address.includes("%")) return fail();
  const bytes = address.includes(":") ? parseIPv6(address) : parseIPv4(address);
  if (!bytes || !/^(0|[1-9]\d*)$/.test(bits)) return fail();
  const prefix = Number(bits);
  if (prefix > bytes.length * 8) return fail();
  if (
    bytes.length === 16 && bytes.slice(0, 10).every((b) => b === 0) &&
    bytes[10] === 255 && bytes[11] === 255
  ) {
    throw new Error(`IPv4-mapped IPv6 address "${text}" is not allowed`);
  }
  return new CIDR(new IP(bytes), prefix);
}

function addresses(environment: Environment): void {
  environment.registerType("net.IP", IP);
  environment.registerType("net.CIDR", CIDR);
  environment.registerOperator(
    "net.IP == net.IP",
    (a: IP, b: IP) => a.equals(b),
  );
  environment.registerOperator(
    "net.CIDR == net.CIDR",
    (a: CIDR, b: CIDR) => a.equals(b),
  );
  const wrap = <T>(parse: (text: string) => T) => (text: string): T => {
    try {
      return parse(text);
    } catch (error) {
      throw celError((error as Error).message);
    }
  };
  const valid =
    (parse: (text: string) => unknown) => (text: string): boolean => {
      try {
        parse(text);
        return true;
      } catch {
        return false;
      }
    };
  environment.registerFunction("ip(string): net.IP", wrap(parseAddress));
  environment.registerFunction("isIP(string): bool", valid(parseAddress));
  const ipNamespace = class IpNamespace {};
  environment.registerType("IpNamespace", ipNamespace);
  environment.registerConstant("ip", "IpNamespace", new ipNamespace());
  environment.registerFunction(
    "IpNamespace.isCanonical(string): bool",
    (_: unknown, text: string) => wrap(parseAddress)(text).toString() === text,
  );
  environment.registerFunction(
    "net.IP.family(): int",
    (ip: IP) => BigInt(ip.family),
  );
  environment.registerFunction(
    "net.IP.isUnspecified(): bool",
    (ip: IP) => ip.bytes.every((b) => b === 0),
  );
  environment.registerFunction(
    "net.IP.isLoopback(): bool",
    (ip: IP) =>
      ip.family === 4
        ? ip.bytes[0] === 127
        : ip.bytes.slice(0, 15).every((b) => b === 0) && ip.bytes[15] === 1,
  );
  environment.registerFunction(
    "net.IP.isLinkLocalMulticast(): bool",
    (ip: IP) =>
      ip.family === 4
        ? ip.bytes[0] === 224 && ip.bytes[1] === 0 && ip.bytes[2] === 0
        : ip.bytes[0] === 0xff && (ip.bytes[1]! & 0x0f) === 0x02,
  );
  environment.registerFunction(
    "net.IP.isLinkLocalUnicast(): bool",
    (ip: IP) =>
      ip.family === 4
        ? ip.bytes[0] === 169 && ip.bytes[1] === 254
        : ip.bytes[0] === 0xfe && (ip.bytes[1]! & 0xc0) === 0x80,
  );
  environment.registerFunction("net.IP.isGlobalUnicast(): bool", (ip: IP) => {
    const b = ip.bytes;
    if (ip.family === 4) {
      return !(b.every((x) => x === 255) || b.every((x) => x === 0) ||
        b[0] === 127 || b[0]! >= 224 || (b[0] === 169 && b[1] === 254));
    }
    return !(b.every((x) => x === 0) || b[0] === 0xff ||
      (b[0] === 0xfe && (b[1]! & 0xc0) === 0x80) ||
      (b.slice(0, 15).every((x) => x === 0) && b[15] === 1));
  });
  environment.registerFunction(
    "string(net.IP): string",
    (ip: IP) => ip.toString(),
  );

  environment.registerFunction("cidr(string): net.CIDR", wrap(parseCIDR));
  environment.registerFunction("isCIDR(string): bool", valid(parseCIDR));
  environment.registerFunction(
    "net.CIDR.containsIP(net.IP): bool",
    (cidr: CIDR, ip: IP) => cidr.contains(ip),
  );
  environment.registerFunction(
    "net.CIDR.containsIP(string): bool",
    (cidr: CIDR, ip: string) => cidr.contains(wrap(parseAddress)(ip)),
  );
  const containsCIDR = (cidr: CIDR, other: CIDR): boolean =>
    other.prefix >= cidr.prefix && cidr.contains(other.ip);
  environment.registerFunction(
    "net.CIDR.containsCIDR(net.CIDR): bool",
    containsCIDR,
  );
  environment.registerFunction(
    "net.CIDR.containsCIDR(string): bool",
    (cidr: CIDR, other: string) => containsCIDR(cidr, wrap(parseCIDR)(other)),
  );
  environment.registerFunction(
    "net.CIDR.ip(): net.IP",
    (cidr: CIDR) => cidr.ip,
  );
  environment.registerFunction(
    "net.CIDR.masked(): net.CIDR",
    (cidr: CIDR) => cidr.masked(),
  );
  environment.registerFunction(
    "net.CIDR.prefixLength(): int",
    (cidr: CIDR) => BigInt(cidr.prefix),
  );
  environment.registerFunction(
    "string(net.CIDR): string",
    (cidr: CIDR) => cidr.toString(),
  );
}

// ------------------------------------------------------------------ semver

/** A semantic version (blang/semver). */
class Semver {
  constructor(
    readonly major: bigint,
    readonly minor: bigint,
    readonly patch: bigint,
    readonly pre: readonly string[],
  ) {}
  compareTo(other: Semver): number {
    for (const key of ["major", "minor", "patch"] as const) {
      if (this[key] !== other[key]) return this[key] < other[key] ? -1 : 1;
    }
    if (this.pre.length === 0 || other.pre.length === 0) {
      return other.pre.length - this.pre.length === 0
        ? 0
        : this.pre.length === 0
        ? 1
        : -1;
    }
    for (let i = 0; i < Math.min(this.pre.length, other.pre.length); i++) {
      const a = this.pre[i]!;
      const b = other.pre[i]!;
      if (a === b) continue;
      const an = /^\d+$/.test(a);
      const bn = /^\d+$/.test(b);
      if (an && bn) return BigInt(a) < BigInt(b) ? -1 : 1;
      if (an !== bn) return an ? -1 : 1;
      return a < b ? -1 : 1;
    }
    return Math.sign(this.pre.length - other.pre.length);
  }
  equals(other: unknown): boolean {
    return other instanceof Semver && this.compareTo(other) === 0;
  }
}

const NUMBER = /^(0|[1-9]\d*)$/;

function parseSemver(text: string, normalize: boolean): Semver {
  let source = text;
  if (normalize) {
    source = source.replace(/^v/, "");
    const parts = source.split(".");
    const head = parts.slice(0, 2);
    const rest = parts.slice(2).join(".");
    const all = rest === "" && parts.length < 3 ? head : [...head, rest];
    const cleaned = all.map((p) => {
      if (p.length <= 1) return p;
      const trimmed = p.replace(/^0+/, "");
      return trimmed === "" || !/^\d/.test(trimmed) ? `0${trimmed}` : trimmed;
    });
    if (cleaned.length < 3) {
      if (/[+-]/.test(cleaned[cleaned.length - 1] ?? "")) {
        throw new Error(
          "short version cannot contain PreRelease/Build meta data",
        );
      }
      while (cleaned.length < 3) cleaned.push("0");
    }
    source = cleaned.join(".");
  }
  const build = source.indexOf("+");
  const core = build < 0 ? source : source.slice(0, build);
  const dash = core.indexOf("-");
  const numbers = (dash < 0 ? core : core.slice(0, dash)).split(".");
  const pre = dash < 0 ? [] : core.slice(dash + 1).split(".");
  if (numbers.length !== 3) {
    throw new Error("No Major.Minor.Patch elements found");
  }
  const names = ["major", "minor", "patch"];
  numbers.forEach((n, i) => {
    if (!/^\d+$/.test(n)) {
      throw new Error(
        `Invalid character(s) found in ${names[i]} number "${n}"`,
      );
    }
    if (!NUMBER.test(n)) {
      throw new Error(
        `${names[i]![0]!.toUpperCase()}${
          names[i]!.slice(1)
        } number must not contain leading zeroes "${n}"`,
      );
    }
  });
  for (const p of pre) {
    if (p === "") throw new Error("Prerelease is empty");
    if (!/^[0-9A-Za-z-]+$/.test(p)) {
      throw new Error(`Invalid character(s) found in prerelease "${p}"`);
    }
    if (/^\d+$/.test(p) && !NUMBER.test(p)) {
      throw new Error(
        `Prerelease number must not contain leading zeroes "${p}"`,
      );
    }
  }
  return new Semver(
    BigInt(numbers[0]!),
    BigInt(numbers[1]!),
    BigInt(numbers[2]!),
    pre,
  );
}

function semvers(environment: Environment): void {
  environment.registerType("kubernetes.Semver", Semver);
  const s = "kubernetes.Semver";
  environment.registerOperator(
    `${s} == ${s}`,
    (a: Semver, b: Semver) => a.equals(b),
  );
  const parse = (text: string, normalize: boolean): Semver => {
    try {
      return parseSemver(text, normalize);
    } catch (error) {
      throw celError((error as Error).message);
    }
  };
  const valid = (text: string, normalize: boolean): boolean => {
    try {
      parseSemver(text, normalize);
      return true;
    } catch {
      return false;
    }
  };
  environment.registerFunction(
    `semver(string): ${s}`,
    (t: string) => parse(t, false),
  );
  environment.registerFunction(`semver(string, bool): ${s}`, parse);
  environment.registerFunction(
    "isSemver(string): bool",
    (t: string) => valid(t, false),
  );
  environment.registerFunction("isSemver(string, bool): bool", valid);
  environment.registerFunction(`${s}.major(): int`, (v: Semver) => v.major);
  environment.registerFunction(`${s}.minor(): int`, (v: Semver) => v.minor);
  environment.registerFunction(`${s}.patch(): int`, (v: Semver) => v.patch);
  environment.registerFunction(
    `${s}.isGreaterThan(${s}): bool`,
    (a: Semver, b: Semver) => a.compareTo(b) > 0,
  );
  environment.registerFunction(
    `${s}.isLessThan(${s}): bool`,
    (a: Semver, b: Semver) => a.compareTo(b) < 0,
  );
  environment.registerFunction(
    `${s}.compareTo(${s}): int`,
    (a: Semver, b: Semver) => BigInt(a.compareTo(b)),
  );
}

// ------------------------------------------------------------------ format

const LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const LABEL_MESSAGE =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const SUBDOMAIN = `${LABEL}(\\.${LABEL})*`;
const SUBDOMAIN_MESSAGE =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS1035 = "[a-z]([-a-z0-9]*[a-z0-9])?";
const DNS1035_MESSAGE =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const NAME = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const NAME_MESSAGE =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
const LABEL_VALUE_MESSAGE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

function regexError(
  message: string,
  pattern: string,
  ...examples: string[]
): string {
  const shown = examples.length
    ? ` (e.g. ${
      examples.map((e) => `'${e}'`).join(",  or ")
    }, regex used for validation is '${pattern}')`
    : ` (regex used for validation is '${pattern}')`;
  return message + shown;
}

function maxLength(n: number): string {
  return `must be no more than ${n} characters`;
}

function dnsName(
  pattern: string,
  message: string,
  max: number,
  examples: string[],
): (text: string, prefix: boolean) => string[] {
  const re = new RegExp(`^${pattern}$`);
  return (text, prefix) => {
    const value = prefix ? `${text}a` : text;
    const errors: string[] = [];
    if (value.length > max) errors.push(maxLength(max));
    if (!re.test(value)) errors.push(regexError(message, pattern, ...examples));
    return errors;
  };
}

const label = dnsName(LABEL, LABEL_MESSAGE, 63, ["my-name", "123-abc"]);
const subdomain = dnsName(SUBDOMAIN, SUBDOMAIN_MESSAGE, 253, ["example.com"]);
const dns1035 = dnsName(DNS1035, DNS1035_MESSAGE, 63, ["my-name", "abc-123"]);

function qualifiedName(text: string): string[] {
  const parts = text.split("/");
  let name = text;
  const errors: string[] = [];
  if (parts.length === 2) {
    const [prefix = "", rest = ""] = parts;
    name = rest;
    if (prefix.length === 0) errors.push("prefix part must be non-empty");
    else {
      for (const e of subdomain(prefix, false)) errors.push(`prefix part ${e}`);
    }
  } else if (parts.length > 2) {
    return [
      "a qualified name " +
      regexError(
        "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        NAME,
        "MyName",
        "my.name",
        "123-abc",
      ) +
      " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errors.push("name part must be non-empty");
  else if (name.length > 63) errors.push(`name part ${maxLength(63)}`);
  if (name.length > 0 && !new RegExp(`^${NAME}$`).test(name)) {
    errors.push(regexError(NAME_MESSAGE, NAME, "MyName", "my.name", "123-abc"));
  }
  return errors;
}

function labelValue(text: string): string[] {
  const errors: string[] = [];
  if (text.length > 63) errors.push(maxLength(63));
  if (!new RegExp(`^${LABEL_VALUE}$`).test(text)) {
    errors.push(
      regexError(
        LABEL_VALUE_MESSAGE,
        LABEL_VALUE,
        "MyValue",
        "my_value",
        "12345",
      ),
    );
  }
  return errors;
}

/** A named format of `format.*()`. */
class Format {
  constructor(
    readonly name: string,
    readonly validate: (text: string) => string[],
  ) {}
}

const FORMATS: Record<string, Format> = {
  dns1123Label: new Format("DNS1123Label", (s) => label(s, false)),
  dns1123Subdomain: new Format("DNS1123Subdomain", (s) => subdomain(s, false)),
  dns1035Label: new Format("DNS1035Label", (s) => dns1035(s, false)),
  qualifiedName: new Format("QualifiedName", qualifiedName),
  dns1123LabelPrefix: new Format("DNS1123LabelPrefix", (s) => label(s, true)),
  dns1123SubdomainPrefix: new Format(
    "DNS1123SubdomainPrefix",
    (s) => subdomain(s, true),
  ),
  dns1035LabelPrefix: new Format("DNS1035LabelPrefix", (s) => dns1035(s, true)),
  labelValue: new Format("LabelValue", labelValue),
  uri: new Format("URI", (s) => {
    try {
      parseURL(s);
      return [];
    } catch (error) {
      return [(error as Error).message];
    }
  }),
  uuid: new Format(
    "uuid",
    (s) => stringFormat("uuid", s) ? [] : ["does not match the UUID format"],
  ),
  byte: new Format(
    "byte",
    (s) => stringFormat("byte", s) ? [] : ["invalid base64"],
  ),
  date: new Format(
    "date",
    (s) => stringFormat("date", s) ? [] : ["invalid date"],
  ),
  datetime: new Format(
    "datetime",
    (s) => stringFormat("date-time", s) ? [] : ["invalid datetime"],
  ),
};

function formats(environment: Environment, optional: OptionalClass): void {
  environment.registerType("kubernetes.NamedFormat", Format);
  const type = "FormatNamespace";
  const made = class FormatNamespace {};
  environment.registerType(type, made);
  environment.registerConstant("format", type, new made());
  for (const [name, value] of Object.entries(FORMATS)) {
    environment.registerFunction(
      `${type}.${name}(): kubernetes.NamedFormat`,
      () => value,
    );
  }
  environment.registerFunction(
    `${type}.named(string): optional<kubernetes.NamedFormat>`,
    (_: unknown, name: string) =>
      FORMATS[name] ? optional.of(FORMATS[name]) : optional.none(),
  );
  environment.registerFunction(
    "kubernetes.NamedFormat.validate(string): optional<list<string>>",
    (format: Format, text: string) => {
      const errors = format.validate(text);
      return errors.length ? optional.of(errors) : optional.none();
    },
  );
}

/** The engine's optional values. */
export interface OptionalClass {
  of(value: unknown): unknown;
  none(): unknown;
}

/** Registers the Kubernetes types and their functions. */
export function kubernetesTypes(
  environment: Environment,
  optional: OptionalClass,
): void {
  quantities(environment);
  urls(environment);
  addresses(environment);
  semvers(environment);
  formats(environment, optional);
}
