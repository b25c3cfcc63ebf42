package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// pki is the throwaway key material of one run: a CA, the apiserver's
// serving certificate, an admin client certificate (system:masters), the
// ServiceAccount token signing key and two bearer tokens.
type pki struct {
	caPEM            []byte
	adminToken       string
	controllersToken string
	userTokens       map[string]string
	caFile           string
	caKeyFile        string
	servingCertFile  string
	servingKeyFile   string
	adminCertFile    string
	adminKeyFile     string
	saKeyFile        string
	saPubFile        string
	tokenAuthFile    string
}

func writePEM(path, typ string, der []byte, mode os.FileMode) error {
	return os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), mode)
}

func newKey() (*ecdsa.PrivateKey, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	return key, der, err
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		panic(err)
	}
	return n
}

// issue signs a leaf certificate with the CA and writes cert and key.
func issue(ca *x509.Certificate, caKey *ecdsa.PrivateKey, tmpl *x509.Certificate, certFile, keyFile string) error {
	key, keyDER, err := newKey()
	if err != nil {
		return err
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return err
	}
	if err := writePEM(certFile, "CERTIFICATE", der, 0o644); err != nil {
		return err
	}
	return writePEM(keyFile, "PRIVATE KEY", keyDER, 0o600)
}

func makePKI(dir string, users []string) (*pki, error) {
	p := &pki{
		userTokens:       map[string]string{},
		caFile:           filepath.Join(dir, "ca.crt"),
		caKeyFile:        filepath.Join(dir, "ca.key"),
		servingCertFile:  filepath.Join(dir, "apiserver.crt"),
		servingKeyFile:   filepath.Join(dir, "apiserver.key"),
		adminCertFile:    filepath.Join(dir, "admin.crt"),
		adminKeyFile:     filepath.Join(dir, "admin.key"),
		saKeyFile:        filepath.Join(dir, "sa.key"),
		saPubFile:        filepath.Join(dir, "sa.pub"),
		tokenAuthFile:    filepath.Join(dir, "tokens.csv"),
		adminToken:       randomHex(24),
		controllersToken: randomHex(24),
	}
	now := time.Now().Add(-time.Hour) // tolerate small clock skew
	notAfter := now.Add(10 * 365 * 24 * time.Hour)

	caKey, caKeyDER, err := newKey()
	if err != nil {
		return nil, err
	}
	caTmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: "liken-control-plane-ca"},
		NotBefore:             now,
		NotAfter:              notAfter,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, err
	}
	p.caPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
	if err := os.WriteFile(p.caFile, p.caPEM, 0o644); err != nil {
		return nil, err
	}
	if err := writePEM(p.caKeyFile, "PRIVATE KEY", caKeyDER, 0o600); err != nil {
		return nil, err
	}

	// Serving certificate: loopback plus the in-cluster names, so a client
	// that verifies against "kubernetes.default.svc" also works.
	err = issue(ca, caKey, &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: "kube-apiserver"},
		NotBefore:    now,
		NotAfter:     notAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("::1"), net.ParseIP(serviceIP)},
		DNSNames: []string{"localhost", "kubernetes", "kubernetes.default",
			"kubernetes.default.svc", "kubernetes.default.svc.cluster.local"},
	}, p.servingCertFile, p.servingKeyFile)
	if err != nil {
		return nil, err
	}

	// Admin client certificate: group system:masters bypasses RBAC.
	err = issue(ca, caKey, &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: "admin", Organization: []string{"system:masters"}},
		NotBefore:    now,
		NotAfter:     notAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}, p.adminCertFile, p.adminKeyFile)
	if err != nil {
		return nil, err
	}

	// ServiceAccount token signing key (ES256).
	saKey, saKeyDER, err := newKey()
	if err != nil {
		return nil, err
	}
	if err := writePEM(p.saKeyFile, "PRIVATE KEY", saKeyDER, 0o600); err != nil {
		return nil, err
	}
	pubDER, err := x509.MarshalPKIXPublicKey(&saKey.PublicKey)
	if err != nil {
		return nil, err
	}
	if err := writePEM(p.saPubFile, "PUBLIC KEY", pubDER, 0o644); err != nil {
		return nil, err
	}

	// Static bearer tokens (token,user,uid,"groups"). The controllers get
	// their own user so the audit log tells their requests apart.
	tokens := p.adminToken + `,admin,admin,"system:masters"` + "\n" +
		p.controllersToken + `,system:kube-controller-manager,kube-controller-manager,"system:masters"` + "\n"
	// A token per --user (for example one per replica of an operator, so
	// the audit log tells the replicas apart), in a group a test can bind.
	for _, user := range users {
		p.userTokens[user] = randomHex(24)
		tokens += p.userTokens[user] + "," + user + "," + user + `,"liken:users"` + "\n"
	}
	if err := os.WriteFile(p.tokenAuthFile, []byte(tokens), 0o600); err != nil {
		return nil, err
	}
	return p, nil
}
