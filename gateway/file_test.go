package gateway

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"log/slog"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestParseConfig: every field of a backend, as --backend and --backend-limits give them,
// plus credentials from the environment and a file.
func TestParseConfig(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "api-secret"), []byte("from-file\n"), 0o600))
	t.Setenv("GW_TEST_WEB_AUTH", "Bearer from-env")
	bs, err := LoadConfigFile(writeConfig(t, dir, `{"backends": [
		{"name": "web", "url": "https://mcp.example.com/mcp", "timeout": "1.5s", "maxConcurrent": 16,
		 "rate": 50.5, "burst": 10, "breakerFailures": 3, "breakerCooldown": "10s",
		 "headers": {"Authorization": "env:GW_TEST_WEB_AUTH"}},
		{"name": "api", "url": "https://api.example.com/mcp",
		 "oauth": {"issuer": "https://auth.example.com", "clientId": "gw", "clientSecret": "file:api-secret",
		           "authMethod": "client_secret_post", "allowedOrigins": ["https://token.example.com"]}},
		{"name": "local", "command": "my-mcp-server", "args": ["--flag", "x"], "env": ["MODE=quiet"]}
	]}`))
	require.NoError(t, err)
	assert.Equal(t, []Backend{
		{Name: "web", URL: "https://mcp.example.com/mcp", Timeout: 1500 * time.Millisecond, MaxConcurrent: 16,
			Rate: 50.5, Burst: 10, BreakerFailures: 3, BreakerCooldown: 10 * time.Second,
			Credentials: Credentials{Authorization: "Bearer from-env"}},
		{Name: "api", URL: "https://api.example.com/mcp", Credentials: Credentials{OAuth: &OAuthClient{
			Issuer: "https://auth.example.com", ClientID: "gw", ClientSecret: "from-file", AuthMethod: "client_secret_post",
			AllowedOrigins: []string{"https://token.example.com"}}}},
		{Name: "local", Command: "my-mcp-server", Args: []string{"--flag", "x"}, Env: []string{"MODE=quiet"}},
	}, bs)
}

func writeConfig(t *testing.T, dir, body string) string {
	t.Helper()
	path := filepath.Join(dir, "gateway.json")
	require.NoError(t, os.WriteFile(path, []byte(body), 0o600))
	return path
}

// TestParseConfigPrivateKey: a private_key_jwt client's key comes from a PEM file.
func TestParseConfigPrivateKey(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	der, err := x509.MarshalPKCS8PrivateKey(key)
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "key.pem"), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600))
	bs, err := LoadConfigFile(writeConfig(t, dir, `{"backends":[{"name":"a","url":"https://a.example/mcp",
		"oauth":{"issuer":"https://auth.example.com","clientId":"gw","privateKeyFile":"key.pem"}}]}`))
	require.NoError(t, err)
	require.True(t, key.Equal(bs[0].Credentials.OAuth.PrivateKey), "the key of the file")
}

// TestParseConfigErrors: what a configuration may not say, each with its exact error.
func TestParseConfigErrors(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	require.NoError(t, os.WriteFile(empty, []byte("\n"), 0o600))
	big := filepath.Join(dir, "big")
	require.NoError(t, os.WriteFile(big, bytes.Repeat([]byte("x"), MaxSecretFileBytes+1), 0o600))
	t.Setenv("GW_TEST_UNSET", "")
	t.Setenv("GW_TEST_K", "k")
	const pre = "gateway: invalid configuration: "
	for _, tc := range []struct{ config, want string }{
		{`{"backends":[{"name":"a","url":"https://a.example","maxConcurent":4}]}`,
			`backends[0]: unknown field "maxConcurent"`},
		{`{"backends":[{"name":"a","url":"https://a.example","oauth":{"issuer":"https://x","clientIdd":"gw"}}]}`,
			`backends[0]: unknown field "clientIdd"`},
		{`{"backend":[]}`, `unknown field "backend"`},
		{`{"backends":[]}`, `no "backends"`},
		{`{"backends":[{"name":"a","url":"https://a.example"}]} {}`, `data after the configuration's object`},
		{`{"backends":[{"name":"a","url":"https://a.example","timeout":5}]}`,
			`backends[0]: want a duration such as "5s", got 5`},
		{`{"backends":[{"name":"a","url":"https://a.example","timeout":"-1s"}]}`,
			`backends[0]: backend "a": a limit is negative (or Rate not a finite number)`},
		{`{"backends":[{"name":"a","url":"https://a.example"},{"name":"a","url":"https://b.example"}]}`,
			`backends[1]: backend name "a" given twice`},
		{`{"backends":[{"name":"A","url":"https://a.example"}]}`,
			`backends[0]: backend name "A": want a lowercase letter, then up to 31 lowercase letters, digits and '-'`},
		{`{"backends":[{"name":"a","url":"https://a.example","headers":{"Authorization":"Bearer inline"}}]}`,
			`backends[0] ("a"): headers.Authorization: want "env:NAME" or "file:PATH": a secret is not written in the configuration`},
		{`{"backends":[{"name":"a","url":"https://a.example","headers":{"Mcp-Method":"env:GW_TEST_K"}}]}`,
			`backends[0]: backend "a": "Mcp-Method" cannot be a credential header (not a token, or a header the client writes itself)`},
		{`{"backends":[{"name":"a","url":"https://a.example","headers":{"X-Key":"env:GW_TEST_K","x-key":"env:GW_TEST_K"}}]}`,
			`backends[0] ("a"): headers: x-key given twice`},
		{`{"backends":[{"name":"a","url":"https://a.example","headers":{"Authorization":"env:GW_TEST_UNSET"}}]}`,
			`backends[0] ("a"): headers.Authorization: environment variable GW_TEST_UNSET is not set`},
		{`{"backends":[{"name":"a","url":"https://a.example","headers":{"Authorization":"file:` + empty + `"}}]}`,
			`backends[0] ("a"): headers.Authorization: ` + empty + ` is empty`},
		{`{"backends":[{"name":"a","url":"https://a.example","headers":{"Authorization":"file:` + big + `"}}]}`,
			`backends[0] ("a"): headers.Authorization: ` + big + `: larger than 65536 bytes (MaxSecretFileBytes)`},
		{`{"backends":[{"name":"a","url":"https://a.example","oauth":{"issuer":"https://x","clientId":"gw","clientSecret":"inline"}}]}`,
			`backends[0] ("a"): oauth.clientSecret: want "env:NAME" or "file:PATH": a secret is not written in the configuration`},
		{`{"backends":[{"name":"a","url":"https://a.example","oauth":{"issuer":"https://x","clientId":"gw","privateKeyFile":"` + empty + `"}}]}`,
			`backends[0] ("a"): oauth.privateKeyFile: ` + empty + ` holds no PEM block`},
	} {
		_, err := ParseConfig([]byte(tc.config))
		require.ErrorIs(t, err, ErrInvalidConfig, tc.config)
		assert.EqualError(t, err, pre+tc.want, tc.config)
	}
	t.Setenv("GW_TEST_S", "Bearer x")
	_, err := ParseConfig([]byte(`{"backends":[{"name":"s","command":"x","headers":{"Authorization":"env:GW_TEST_S"}}]}`))
	assert.EqualError(t, err, pre+`backends[0]: backend "s": credentials are sent over HTTP only; a stdio backend takes its own from Env`)
}

// TestLoadConfigFileBounded: a file past MaxConfigFileBytes is refused.
func TestLoadConfigFileBounded(t *testing.T) {
	dir := t.TempDir()
	body := `{"backends":[{"name":"a","url":"https://a.example"}]}`
	path := writeConfig(t, dir, body+strings.Repeat(" ", MaxConfigFileBytes-len(body)))
	_, err := LoadConfigFile(path)
	require.NoError(t, err, "exactly MaxConfigFileBytes")
	path = writeConfig(t, dir, body+strings.Repeat(" ", MaxConfigFileBytes-len(body)+1))
	_, err = LoadConfigFile(path)
	assert.EqualError(t, err, "gateway: invalid configuration: config file "+path+": larger than 1048576 bytes (MaxConfigFileBytes)")
	_, err = LoadConfigFile(filepath.Join(dir, "missing.json"))
	assert.EqualError(t, err, "gateway: invalid configuration: config file: open "+filepath.Join(dir, "missing.json")+": no such file or directory")
}

// TestCredentialsRedacted: a Backend printed, marshalled or logged whole shows no secret
// and no key.
func TestCredentialsRedacted(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	raw, err := key.Bytes()
	require.NoError(t, err)
	for _, b := range []Backend{
		{Name: "a", URL: "https://a.example", Credentials: Credentials{Authorization: "Bearer top-secret"}},
		{Name: "a", URL: "https://a.example", Credentials: Credentials{OAuth: &OAuthClient{Issuer: "https://x", ClientID: "gw", ClientSecret: "top-secret"}}},
		{Name: "a", URL: "https://a.example", Credentials: Credentials{OAuth: &OAuthClient{Issuer: "https://x", ClientID: "gw", PrivateKey: key}}},
	} {
		var out bytes.Buffer
		fmt.Fprintf(&out, "%v %+v %#v %s", b, b, b, b.Credentials.Authorization)
		j, err := json.Marshal(b)
		require.NoError(t, err)
		out.Write(j)
		slog.New(slog.NewJSONHandler(&out, nil)).Info("x", "backend", b, "creds", b.Credentials, "auth", b.Credentials.Authorization)
		slog.New(slog.NewTextHandler(&out, nil)).Info("x", "backend", b, "oauth", b.Credentials.OAuth)
		assert.NotContains(t, out.String(), "top-secret")
		assert.NotContains(t, out.String(), new(big.Int).SetBytes(raw).String(), "the key's scalar, as fmt prints a big.Int")
		assert.NotContains(t, out.String(), fmt.Sprintf("%x", raw))
		assert.Contains(t, out.String(), "a.example", "the rest is shown")
	}
}
