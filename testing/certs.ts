/**
 * Certificates and keys for TLS tests, valid from 2025-01-01 for 100 years.
 *
 * **The private keys are published here and are for tests only.** Never
 * trust {@linkcode TestCerts.caCert} outside a test.
 *
 * Two unrelated P-256 CAs, each with one server certificate whose subject
 * alternative names are `IP:127.0.0.1`, `DNS:localhost` and
 * `DNS:kubernetes.default.svc`. They were made with OpenSSL 3.0 by this
 * script, run in an empty scratch directory (`openssl ca` is used because it
 * can set the start date):
 *
 * ```sh
 * set -e
 * # Valid from 2025-01-01 for 100 years, so a machine clock a little behind still accepts them.
 * START=20250101000000Z; END=21250101000000Z
 * cat > ca.cnf <<'CNF'
 * [ca]
 * default_ca = test_ca
 * [test_ca]
 * database = index.txt
 * new_certs_dir = .
 * serial = serial
 * default_md = sha256
 * policy = any
 * copy_extensions = none
 * [any]
 * commonName = supplied
 * [ca_ext]
 * basicConstraints = critical,CA:TRUE
 * keyUsage = critical,keyCertSign,cRLSign
 * subjectKeyIdentifier = hash
 * [server_ext]
 * basicConstraints = critical,CA:FALSE
 * keyUsage = critical,digitalSignature
 * extendedKeyUsage = serverAuth
 * subjectKeyIdentifier = hash
 * authorityKeyIdentifier = keyid
 * subjectAltName = IP:127.0.0.1,DNS:localhost,DNS:kubernetes.default.svc
 * CNF
 * for p in "" other-; do
 *   : > index.txt; echo 1000 > serial
 *   openssl ecparam -name prime256v1 -genkey -noout | openssl pkcs8 -topk8 -nocrypt -out ${p}ca.key
 *   openssl req -new -key ${p}ca.key -subj "/CN=${p}liken-test-ca" -out ${p}ca.csr
 *   openssl ca -batch -config ca.cnf -selfsign -keyfile ${p}ca.key -in ${p}ca.csr \
 *     -startdate $START -enddate $END -extensions ca_ext -notext -out ${p}ca.crt
 *   openssl ecparam -name prime256v1 -genkey -noout | openssl pkcs8 -topk8 -nocrypt -out ${p}server.key
 *   openssl req -new -key ${p}server.key -subj "/CN=${p}liken-test-server" -out ${p}server.csr
 *   openssl ca -batch -config ca.cnf -cert ${p}ca.crt -keyfile ${p}ca.key -in ${p}server.csr \
 *     -startdate $START -enddate $END -extensions server_ext -notext -out ${p}server.crt
 * done
 * ```
 *
 * The PEM files `ca.crt`, `server.crt`, `server.key`, `other-ca.crt`,
 * `other-server.crt` and `other-server.key` are the values below.
 *
 * @module
 */

/** The PEM texts in {@linkcode testCerts}. */
export interface TestCerts {
  /** The test CA's certificate (PEM): trust it to accept {@linkcode TestCerts.serverCert}. */
  readonly caCert: string;
  /** A server certificate (PEM) signed by {@linkcode TestCerts.caCert}, for `127.0.0.1`, `localhost` and `kubernetes.default.svc`. */
  readonly serverCert: string;
  /** The private key (PKCS#8 PEM) of {@linkcode TestCerts.serverCert}. Test-only: it is public. */
  readonly serverKey: string;
  /** An unrelated CA's certificate (PEM), for tests that a wrong CA is refused. */
  readonly otherCaCert: string;
  /** A server certificate (PEM) signed by {@linkcode TestCerts.otherCaCert}, with the same names as {@linkcode TestCerts.serverCert}. */
  readonly otherServerCert: string;
  /** The private key (PKCS#8 PEM) of {@linkcode TestCerts.otherServerCert}. Test-only: it is public. */
  readonly otherServerKey: string;
}

/**
 * Test-only certificates: a CA with a server certificate, and an unrelated CA
 * with its own server certificate. See the module doc for how they were made.
 *
 * @example Serving HTTPS that a client trusting the test CA accepts
 * ```ts
 * import assert from "node:assert/strict";
 * import { testCerts } from "@liken/kubernetes/testing";
 *
 * await using server = Deno.serve({
 *   hostname: "127.0.0.1",
 *   port: 0,
 *   cert: testCerts.serverCert,
 *   key: testCerts.serverKey,
 *   onListen() {},
 * }, () => new Response("hello"));
 * using client = Deno.createHttpClient({ caCerts: [testCerts.caCert] });
 * const res = await fetch(`https://127.0.0.1:${server.addr.port}/`, { client });
 * assert.equal(await res.text(), "hello");
 * ```
 */
export const testCerts: TestCerts = {
  caCert: `-----BEGIN CERTIFICATE-----
MIIBZTCCAQqgAwIBAgICEAAwCgYIKoZIzj0EAwIwGDEWMBQGA1UEAwwNbGlrZW4t
dGVzdC1jYTAgFw0yNTAxMDEwMDAwMDBaGA8yMTI1MDEwMTAwMDAwMFowGDEWMBQG
A1UEAwwNbGlrZW4tdGVzdC1jYTBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABLxJ
MWsN7Qlzklp38JQ6zNoNdNc5H6IrysqNw+OxHQ2afxDP37MKSwupsUTMRjljKS+/
//umfA/XocmxZ+STd4+jQjBAMA8GA1UdEwEB/wQFMAMBAf8wDgYDVR0PAQH/BAQD
AgEGMB0GA1UdDgQWBBRpveYfl5I6CRjEJlrmP/aKSSyASjAKBggqhkjOPQQDAgNJ
ADBGAiEA0QrEFe+UdqUMk0TNqPZfEDMlHaAm7W0JF0CDitnUA7sCIQCnn8MSpZkb
8cTbx8X+2cLTkQyYB0hbb5B3YsQPITJtbQ==
-----END CERTIFICATE-----
`,
  serverCert: `-----BEGIN CERTIFICATE-----
MIIB0jCCAXegAwIBAgICEAEwCgYIKoZIzj0EAwIwGDEWMBQGA1UEAwwNbGlrZW4t
dGVzdC1jYTAgFw0yNTAxMDEwMDAwMDBaGA8yMTI1MDEwMTAwMDAwMFowHDEaMBgG
A1UEAwwRbGlrZW4tdGVzdC1zZXJ2ZXIwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNC
AAREaBK7C2WpOXYW+i+9RuVH+IqXFVsQdGM7kU6tXA+bKXunZguG5pMgpHxeDDke
vRPKky+OErticvha4BDK4Z2fo4GqMIGnMAwGA1UdEwEB/wQCMAAwDgYDVR0PAQH/
BAQDAgeAMBMGA1UdJQQMMAoGCCsGAQUFBwMBMB0GA1UdDgQWBBS5JrWdTN4+OpmL
JxcR7kdFlHXAlDAfBgNVHSMEGDAWgBRpveYfl5I6CRjEJlrmP/aKSSyASjAyBgNV
HREEKzAphwR/AAABgglsb2NhbGhvc3SCFmt1YmVybmV0ZXMuZGVmYXVsdC5zdmMw
CgYIKoZIzj0EAwIDSQAwRgIhALt4N66OzNtG6/trHZWVma5aKs5+avPty57od5S5
UyUBAiEAqAQiqE7DxtrlvVzDVRdpG+z0dU4DZQzGUQvCWHGubj8=
-----END CERTIFICATE-----
`,
  serverKey: `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgPOJcgX2pd2egrTAN
ZYQwU2J7/DTmzMcdfd3lV8q48ZShRANCAAREaBK7C2WpOXYW+i+9RuVH+IqXFVsQ
dGM7kU6tXA+bKXunZguG5pMgpHxeDDkevRPKky+OErticvha4BDK4Z2f
-----END PRIVATE KEY-----
`,
  otherCaCert: `-----BEGIN CERTIFICATE-----
MIIBcDCCARagAwIBAgICEAAwCgYIKoZIzj0EAwIwHjEcMBoGA1UEAwwTb3RoZXIt
bGlrZW4tdGVzdC1jYTAgFw0yNTAxMDEwMDAwMDBaGA8yMTI1MDEwMTAwMDAwMFow
HjEcMBoGA1UEAwwTb3RoZXItbGlrZW4tdGVzdC1jYTBZMBMGByqGSM49AgEGCCqG
SM49AwEHA0IABLtZj4dimCgcSwf3GtRVuqD5sMp+JvlGwOKkMm6HGFf+ER3wGCiX
RateETs+/m4axt4USmnykG1K/T6QsZwDgQ2jQjBAMA8GA1UdEwEB/wQFMAMBAf8w
DgYDVR0PAQH/BAQDAgEGMB0GA1UdDgQWBBRKNNdU9kGcj2o0jeA3Y4r0Sm1uEzAK
BggqhkjOPQQDAgNIADBFAiBe+BDHc+aJNsJkqJOFqyC2m7bP9SqP/1LY5rMtCTBa
hAIhANgUgxn186DXcuGphqaf8upU8cscOBB3D7q4alpqbAuL
-----END CERTIFICATE-----
`,
  otherServerCert: `-----BEGIN CERTIFICATE-----
MIIB3TCCAYOgAwIBAgICEAEwCgYIKoZIzj0EAwIwHjEcMBoGA1UEAwwTb3RoZXIt
bGlrZW4tdGVzdC1jYTAgFw0yNTAxMDEwMDAwMDBaGA8yMTI1MDEwMTAwMDAwMFow
IjEgMB4GA1UEAwwXb3RoZXItbGlrZW4tdGVzdC1zZXJ2ZXIwWTATBgcqhkjOPQIB
BggqhkjOPQMBBwNCAAReiKIAxADtfJnHGFlbhpPbNql44pP01xVheVS936xVZ9ed
jFeP1cIrcDah0ySNcMm3MV0fEQe/LPl7WpS5buUmo4GqMIGnMAwGA1UdEwEB/wQC
MAAwDgYDVR0PAQH/BAQDAgeAMBMGA1UdJQQMMAoGCCsGAQUFBwMBMB0GA1UdDgQW
BBT6ghOjmbMgE/z2Jv8FDsf9YngPSjAfBgNVHSMEGDAWgBRKNNdU9kGcj2o0jeA3
Y4r0Sm1uEzAyBgNVHREEKzAphwR/AAABgglsb2NhbGhvc3SCFmt1YmVybmV0ZXMu
ZGVmYXVsdC5zdmMwCgYIKoZIzj0EAwIDSAAwRQIhALjF6ObRDo/U7N2zcjDvS90q
qa+JSBeeaTwCC7dZgW0jAiAXlXi6G8ppzLWCIFGqm9/hutdwWf5u2B3QTwPpPeCC
4A==
-----END CERTIFICATE-----
`,
  otherServerKey: `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQguW8BcZyAyejOlyfg
E0KlVSOvVQD2EeDR27CcRO+5k7mhRANCAAReiKIAxADtfJnHGFlbhpPbNql44pP0
1xVheVS936xVZ9edjFeP1cIrcDah0ySNcMm3MV0fEQe/LPl7WpS5buUm
-----END PRIVATE KEY-----
`,
};
