/**
 * A client CA and one client certificate (`CN=liken-test-user`,
 * `O=system:masters`, extended key usage `clientAuth`) for mutual-TLS tests
 * of kubeconfig client certificates, valid from 2025-01-01 for 100 years.
 * The private key is published here and is for tests only.
 *
 * Made with OpenSSL 3.0 the way `testing/certs.ts` describes, with a
 * `client_ext` section (`extendedKeyUsage = clientAuth`) in place of
 * `server_ext` and no subject alternative names.
 *
 * @module
 */

/** The CA that signed {@linkcode clientCert}. */
export const clientCaCert: string = `-----BEGIN CERTIFICATE-----
MIIBczCCARigAwIBAgICEAAwCgYIKoZIzj0EAwIwHzEdMBsGA1UEAwwUbGlrZW4t
dGVzdC1jbGllbnQtY2EwIBcNMjUwMTAxMDAwMDAwWhgPMjEyNTAxMDEwMDAwMDBa
MB8xHTAbBgNVBAMMFGxpa2VuLXRlc3QtY2xpZW50LWNhMFkwEwYHKoZIzj0CAQYI
KoZIzj0DAQcDQgAEL4Qs8Q6v+P5vAdO5XvfoVzfcovfTywIfL17cBXjfBfLRFafl
PKRYHNe9ZYVGNs+TPWagFD6IXsXNq+upOwOXXKNCMEAwDwYDVR0TAQH/BAUwAwEB
/zAOBgNVHQ8BAf8EBAMCAQYwHQYDVR0OBBYEFBdYDVRbN5zAq12dv/mIAjPuGqjm
MAoGCCqGSM49BAMCA0kAMEYCIQCA8iTB03geXtFMoxbfRXvHaBvhbc+YAMDcQlCr
czL7IwIhAKU8NuFPMm9JTgPNg/OIbS1lNL+aVuXYWRTDn9E+XRBk
-----END CERTIFICATE-----
`;

/** A client certificate signed by {@linkcode clientCaCert}. */
export const clientCert: string = `-----BEGIN CERTIFICATE-----
MIIBuTCCAV+gAwIBAgICEAEwCgYIKoZIzj0EAwIwHzEdMBsGA1UEAwwUbGlrZW4t
dGVzdC1jbGllbnQtY2EwIBcNMjUwMTAxMDAwMDAwWhgPMjEyNTAxMDEwMDAwMDBa
MDMxGDAWBgNVBAMMD2xpa2VuLXRlc3QtdXNlcjEXMBUGA1UECgwOc3lzdGVtOm1h
c3RlcnMwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAAQ2ZuV51sYoEJJapVZxAjEC
bHRgAqMsPr+YiL/ZdV4l2gWqfn6B+b+luCrNKEUGdtvIvRok+7YazyfM08am4F18
o3UwczAMBgNVHRMBAf8EAjAAMA4GA1UdDwEB/wQEAwIHgDATBgNVHSUEDDAKBggr
BgEFBQcDAjAdBgNVHQ4EFgQUQMbOofuttfSIBeND1tgixbAh+MUwHwYDVR0jBBgw
FoAUF1gNVFs3nMCrXZ2/+YgCM+4aqOYwCgYIKoZIzj0EAwIDSAAwRQIgXr8XgXI/
7947GtTcuypBTD/+X8CyY1bL8TWGzmp7aakCIQDhKXmB8ociOAQomM/YVTpmqyU7
qoUq84hYa4H+S5Vy6g==
-----END CERTIFICATE-----
`;

/** The PKCS#8 P-256 private key of {@linkcode clientCert}. */
export const clientKey: string = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgAOjCUXNJ/pfQ/IDF
+XMErfl6m+zq4Ux1CBRiwr8rTeahRANCAAQ2ZuV51sYoEJJapVZxAjECbHRgAqMs
Pr+YiL/ZdV4l2gWqfn6B+b+luCrNKEUGdtvIvRok+7YazyfM08am4F18
-----END PRIVATE KEY-----
`;
