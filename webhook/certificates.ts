/**
 * A self-signed CA and a serving certificate for development, made with
 * WebCrypto alone (no OpenSSL): {@linkcode generateCertificates}, and
 * {@linkcode writeCertificates} to put them where {@linkcode WebhookServer}
 * reads them, laid out as cert-manager's Secret (`tls.crt`, `tls.key`,
 * `ca.crt`).
 *
 * @module
 */

import {
  bits,
  boolean,
  type Bytes,
  explicit,
  implicit,
  integer,
  namedBits,
  octets,
  oid,
  pem,
  sequence,
  set,
  time,
  utf8,
} from "./_der.ts";

/** What {@linkcode generateCertificates} takes. */
export interface CertificateOptions {
  /**
   * The DNS names the serving certificate is for (its subject alternative
   * names), such as `["hooks.operators.svc", "localhost"]`; see
   * {@linkcode serviceDnsNames}. Default none; give at least one name or
   * address.
   */
  dnsNames?: readonly string[] | undefined;
  /**
   * The IP addresses (IPv4 dotted or IPv6) the serving certificate is for,
   * such as `["127.0.0.1"]`. Default none.
   */
  ipAddresses?: readonly string[] | undefined;
  /** How many days both certificates are valid. Default 365. */
  validDays?: number | undefined;
  /**
   * How long before now they become valid, in ms, so that a clock a
   * little behind accepts them. Default 3 600 000 (an hour).
   */
  backdate?: number | undefined;
  /**
   * The CA's common name. Default `liken-webhook-ca-` and 8 random hex
   * digits, so that CAs made apart are told apart by name too.
   */
  caCommonName?: string | undefined;
  /** The serving certificate's common name. Default the first DNS name, else `liken-webhook`. */
  commonName?: string | undefined;
  /** Aborting it ends the generation with the signal's reason. */
  signal?: AbortSignal | undefined;
}

/** The PEM texts {@linkcode generateCertificates} makes. */
export interface Certificates {
  /** The CA's certificate (PEM): what clients trust, and what `caBundle` carries (base64). */
  readonly caCert: string;
  /** The serving certificate (PEM), signed by the CA. */
  readonly cert: string;
  /** The serving certificate's private key (PEM, unencrypted PKCS#8, P-256). */
  readonly key: string;
  /** `caCert` in base64, as a webhook configuration's or CRD conversion's `caBundle`. */
  readonly caBundle: string;
  /** When both become valid. */
  readonly notBefore: Date;
  /** When both expire. */
  readonly notAfter: Date;
}

const EC_SIGN = { name: "ECDSA", namedCurve: "P-256" } as const;
const SIGNING = { name: "ECDSA", hash: "SHA-256" } as const;
const ECDSA_WITH_SHA256 = "1.2.840.10045.4.3.2";
const DAY = 86_400_000;

/**
 * The names a Service is reached by in a cluster, as the API server calls
 * a webhook's `clientConfig.service`: `<name>.<namespace>.svc` and
 * `<name>.<namespace>.svc.cluster.local`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { serviceDnsNames } from "@liken/kubernetes/webhook";
 *
 * assert.deepEqual(serviceDnsNames("hooks", "operators"), [
 *   "hooks.operators.svc",
 *   "hooks.operators.svc.cluster.local",
 * ]);
 * ```
 *
 * @param name The Service's name.
 * @param namespace The Service's namespace.
 * @returns The DNS names.
 */
export function serviceDnsNames(name: string, namespace: string): string[] {
  return [`${name}.${namespace}.svc`, `${name}.${namespace}.svc.cluster.local`];
}

/**
 * Makes a CA and a serving certificate it signs, for development and
 * tests (production uses cert-manager and its `inject-ca-from`): ECDSA
 * P-256 keys and SHA-256 signatures from WebCrypto, X.509 v3 as RFC 5280
 * and rustls (Deno's TLS) want them.
 *
 * - The CA: `basicConstraints` CA:TRUE, path length 0 (critical),
 *   `keyUsage` keyCertSign and cRLSign (critical), a
 *   `subjectKeyIdentifier`. Its private key is discarded: a new
 *   certificate means a new CA (and a new `caBundle`).
 * - The serving certificate: CA:FALSE (critical), `keyUsage`
 *   digitalSignature (critical), `extendedKeyUsage` serverAuth, the
 *   `subjectAltName`s given (clients check those, not the common name),
 *   `subjectKeyIdentifier` and `authorityKeyIdentifier`.
 *
 * Both are valid from `backdate` before now, for `validDays`.
 *
 * @example Serve HTTPS that a client trusting the CA accepts
 * ```ts
 * import assert from "node:assert/strict";
 * import { generateCertificates } from "@liken/kubernetes/webhook";
 *
 * const { caCert, cert, key } = await generateCertificates({
 *   dnsNames: ["localhost"],
 *   ipAddresses: ["127.0.0.1"],
 * });
 * await using server = Deno.serve(
 *   { hostname: "127.0.0.1", port: 0, cert, key, onListen() {} },
 *   () => new Response("hello"),
 * );
 * using client = Deno.createHttpClient({ caCerts: [caCert] });
 * const response = await fetch(`https://127.0.0.1:${server.addr.port}/`, { client });
 * assert.equal(await response.text(), "hello");
 * ```
 *
 * @param options The names, the validity and a signal.
 * @returns The PEM texts.
 * @throws {TypeError} When no name or address is given, or one is not valid.
 * @throws {RangeError} When `validDays` is not a positive number.
 */
export async function generateCertificates(
  options: CertificateOptions,
): Promise<Certificates> {
  const { signal } = options;
  signal?.throwIfAborted();
  const dnsNames = [...(options.dnsNames ?? [])];
  const ipAddresses = [...(options.ipAddresses ?? [])];
  if (dnsNames.length === 0 && ipAddresses.length === 0) {
    throw new TypeError(
      "A serving certificate needs at least one DNS name or IP address",
    );
  }
  for (const name of dnsNames) {
    if (
      !/^(\*\.)?[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/
        .test(name)
    ) {
      throw new TypeError(`Not a DNS name: ${JSON.stringify(name)}`);
    }
  }
  const addresses = ipAddresses.map(parseIp);
  const validDays = options.validDays ?? 365;
  if (!(validDays > 0) || !Number.isFinite(validDays)) {
    throw new RangeError(`Not a positive number of days: ${validDays}`);
  }
  const backdate = options.backdate ?? 3_600_000;
  const notBefore = new Date(Math.floor((Date.now() - backdate) / 1000) * 1000);
  const notAfter = new Date(notBefore.getTime() + backdate + validDays * DAY);

  const caKeys = await crypto.subtle.generateKey(EC_SIGN, false, ["sign"]);
  const keys = await crypto.subtle.generateKey(EC_SIGN, true, ["sign"]);
  signal?.throwIfAborted();
  const caSpki = new Uint8Array(
    await crypto.subtle.exportKey("spki", caKeys.publicKey),
  );
  const spki = new Uint8Array(
    await crypto.subtle.exportKey("spki", keys.publicKey),
  );
  const caKeyId = await keyIdentifier(caSpki);
  const keyId = await keyIdentifier(spki);
  const suffix = [...crypto.getRandomValues(new Uint8Array(4))]
    .map((b) => b.toString(16).padStart(2, "0")).join("");
  const caName = distinguishedName(
    options.caCommonName ?? `liken-webhook-ca-${suffix}`,
  );
  const validity = sequence(time(notBefore), time(notAfter));

  const caDer = await signed(caKeys.privateKey, [
    explicit(0, integer(2)),
    integer(serialNumber()),
    sequence(oid(ECDSA_WITH_SHA256)),
    caName,
    validity,
    caName,
    caSpki,
    explicit(
      3,
      sequence(
        extension("2.5.29.19", true, sequence(boolean(true), integer(0))),
        extension("2.5.29.15", true, namedBits([5, 6])),
        extension("2.5.29.14", false, octets(caKeyId)),
      ),
    ),
  ]);
  signal?.throwIfAborted();
  const alternatives = [
    ...dnsNames.map((n) => implicit(2, new TextEncoder().encode(n))),
    ...addresses.map((a) => implicit(7, a)),
  ];
  const serverDer = await signed(caKeys.privateKey, [
    explicit(0, integer(2)),
    integer(serialNumber()),
    sequence(oid(ECDSA_WITH_SHA256)),
    caName,
    validity,
    distinguishedName(options.commonName ?? dnsNames[0] ?? "liken-webhook"),
    spki,
    explicit(
      3,
      sequence(
        extension("2.5.29.19", true, sequence()),
        extension("2.5.29.15", true, namedBits([0])),
        extension("2.5.29.37", false, sequence(oid("1.3.6.1.5.5.7.3.1"))),
        extension("2.5.29.14", false, octets(keyId)),
        extension("2.5.29.35", false, sequence(implicit(0, caKeyId))),
        extension("2.5.29.17", false, sequence(...alternatives)),
      ),
    ),
  ]);
  const pkcs8 = new Uint8Array(
    await crypto.subtle.exportKey("pkcs8", keys.privateKey),
  );
  signal?.throwIfAborted();
  const caCert = pem("CERTIFICATE", caDer);
  return {
    caCert,
    cert: pem("CERTIFICATE", serverDer),
    key: pem("PRIVATE KEY", pkcs8),
    caBundle: btoa(caCert),
    notBefore,
    notAfter,
  };
}

/** What {@linkcode writeCertificates} takes. */
export interface WriteCertificatesOptions {
  /** Aborting it ends the writing with the signal's reason. */
  signal?: AbortSignal | undefined;
}

/**
 * Writes certificates as files in `directory` (made if missing), named as
 * the keys of cert-manager's Secret (`kubernetes.io/tls`): `tls.crt` (the
 * serving certificate), `tls.key` (its key, mode 0600) and `ca.crt`; give
 * `<directory>/tls.crt` and `<directory>/tls.key` to
 * {@linkcode WebhookServer}'s `certFile` and `keyFile`. Each file is
 * written beside itself and renamed into place, so a reader never sees
 * half of one. The two renames are not one, though: a running server may
 * read the new key beside the old certificate, report that the pair did
 * not load, and load the new pair on its next read (a kubelet-mounted
 * Secret swaps both at once).
 *
 * Needs `--allow-read` and `--allow-write` for the directory.
 *
 * @example Certificates for a WebhookServer that reloads them
 * ```ts
 * import assert from "node:assert/strict";
 * import {
 *   generateCertificates,
 *   validating,
 *   WebhookServer,
 *   writeCertificates,
 * } from "@liken/kubernetes/webhook";
 *
 * await Deno.mkdir(".tmp", { recursive: true });
 * const directory = await Deno.makeTempDir({ dir: ".tmp" });
 * const certificates = await generateCertificates({ ipAddresses: ["127.0.0.1"] });
 * await writeCertificates(directory, certificates);
 * await using server = new WebhookServer({
 *   hostname: "127.0.0.1",
 *   port: 0,
 *   certFile: `${directory}/tls.crt`,
 *   keyFile: `${directory}/tls.key`,
 *   webhooks: { "/validate": validating(() => {}) },
 * });
 * using client = Deno.createHttpClient({ caCerts: [certificates.caCert] });
 * const health = await fetch(`https://127.0.0.1:${server.port}/healthz`, { client });
 * assert.equal(await health.text(), "ok\n");
 * await server.stop();
 * await Deno.remove(directory, { recursive: true });
 * ```
 *
 * @param directory Where the files go.
 * @param certificates What {@linkcode generateCertificates} made.
 * @param options A signal.
 * @returns Settles when the three files are in place.
 */
export async function writeCertificates(
  directory: string,
  certificates: Pick<Certificates, "caCert" | "cert" | "key">,
  options: WriteCertificatesOptions = {},
): Promise<void> {
  const { signal } = options;
  signal?.throwIfAborted();
  await Deno.mkdir(directory, { recursive: true });
  const files: [string, string, number][] = [
    ["ca.crt", certificates.caCert, 0o644],
    ["tls.key", certificates.key, 0o600],
    ["tls.crt", certificates.cert, 0o644],
  ];
  for (const [name, text, mode] of files) {
    signal?.throwIfAborted();
    const path = `${directory}/${name}`;
    const temporary = `${directory}/.${name}.${crypto.randomUUID()}`;
    try {
      await Deno.writeTextFile(temporary, text, {
        mode,
        ...(signal === undefined ? {} : { signal }),
      });
      await Deno.chmod(temporary, mode).catch(() => {}); // Past the umask.
      await Deno.rename(temporary, path);
    } catch (error) {
      await Deno.remove(temporary).catch(() => {});
      throw error;
    }
  }
}

function distinguishedName(commonName: string): Bytes {
  return sequence(set(sequence(oid("2.5.4.3"), utf8(commonName))));
}

function extension(id: string, critical: boolean, value: Bytes): Bytes {
  return critical
    ? sequence(oid(id), boolean(true), octets(value))
    : sequence(oid(id), octets(value));
}

// A positive 127-bit serial (RFC 5280 allows up to 20 octets).
function serialNumber(): Bytes {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[0] = (bytes[0]! & 0x7f) | 0x01;
  return bytes;
}

// RFC 5280 §4.2.1.2 method 1: the SHA-1 of the subjectPublicKey's bits (for
// P-256, the 65-byte uncompressed point that ends the SPKI).
async function keyIdentifier(spki: Uint8Array): Promise<Bytes> {
  return new Uint8Array(
    await crypto.subtle.digest("SHA-1", spki.slice(spki.length - 65)),
  );
}

// Certificate ::= SEQUENCE { tbsCertificate, signatureAlgorithm, signature }
async function signed(
  key: CryptoKey,
  tbsParts: Uint8Array[],
): Promise<Bytes> {
  const tbs = sequence(...tbsParts);
  const raw = new Uint8Array(await crypto.subtle.sign(SIGNING, key, tbs));
  // WebCrypto gives r‖s; X.509 wants ECDSA-Sig-Value ::= SEQUENCE { r, s }.
  const half = raw.length / 2;
  const signature = sequence(
    integer(raw.subarray(0, half)),
    integer(raw.subarray(half)),
  );
  return sequence(tbs, sequence(oid(ECDSA_WITH_SHA256)), bits(signature));
}

function parseIp(text: string): Bytes {
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (v4 !== null) {
    const octetsOf = v4.slice(1).map(Number);
    if (octetsOf.every((o) => o <= 255)) return Uint8Array.from(octetsOf);
  } else if (text.includes(":") && /^[0-9A-Fa-f:]+$/.test(text)) {
    const halves = text.split("::");
    if (halves.length <= 2) {
      const groups = (part: string | undefined): string[] =>
        part === undefined || part === "" ? [] : part.split(":");
      const head = groups(halves[0]);
      const tail = groups(halves[1]);
      const missing = 8 - head.length - tail.length;
      const ok = halves.length === 2 ? missing >= 1 : missing === 0;
      const all = [...head, ...Array(Math.max(missing, 0)).fill("0"), ...tail];
      if (ok && all.every((g) => /^[0-9A-Fa-f]{1,4}$/.test(g))) {
        const out = new Uint8Array(16);
        all.forEach((g, i) => {
          const n = parseInt(g, 16);
          out[2 * i] = n >> 8;
          out[2 * i + 1] = n & 0xff;
        });
        return out;
      }
    }
  }
  throw new TypeError(`Not an IP address: ${JSON.stringify(text)}`);
}
