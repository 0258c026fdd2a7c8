package gateway

import (
	"bytes"
	"crypto"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// MaxConfigFileBytes bounds the file LoadConfigFile reads (1 MiB); MaxSecretFileBytes a
// file a credential is read from ("file:/path", a private key file; 64 KiB). Past them the
// configuration is refused, the file not read further.
const (
	MaxConfigFileBytes = 1 << 20
	MaxSecretFileBytes = 64 << 10
)

// configFile is the JSON of a configuration file. Field names are those of Backend, in
// camelCase; an unknown one is an error, so that a typo cannot drop a limit unseen.
type configFile struct {
	Backends []json.RawMessage `json:"backends"`
}

type backendJSON struct {
	Name            string            `json:"name"`
	URL             string            `json:"url"`
	Command         string            `json:"command"`
	Args            []string          `json:"args"`
	Env             []string          `json:"env"`
	Timeout         duration          `json:"timeout"`
	MaxConcurrent   int               `json:"maxConcurrent"`
	Rate            float64           `json:"rate"`
	Burst           int               `json:"burst"`
	BreakerFailures int               `json:"breakerFailures"`
	BreakerCooldown duration          `json:"breakerCooldown"`
	Headers         map[string]string `json:"headers"`
	OAuth           *oauthJSON        `json:"oauth"`
}

type oauthJSON struct {
	Issuer           string   `json:"issuer"`
	ClientID         string   `json:"clientId"`
	ClientSecret     string   `json:"clientSecret"`
	PrivateKeyFile   string   `json:"privateKeyFile"`
	SigningAlgorithm string   `json:"signingAlgorithm"`
	AuthMethod       string   `json:"authMethod"`
	AllowedOrigins   []string `json:"allowedOrigins"`
}

// duration is a time.Duration written as Go writes one: "1.5s", "250ms".
type duration time.Duration

func (d *duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("want a duration such as \"5s\", got %s", b)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	*d = duration(v)
	return nil
}

// LoadConfigFile reads the backends of a configuration file (see ParseConfig), at most
// MaxConfigFileBytes of it. A relative "file:" path is relative to the file's directory.
func LoadConfigFile(path string) ([]Backend, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: config file: %w", ErrInvalidConfig, err)
	}
	defer f.Close()
	data, err := readBounded(f, MaxConfigFileBytes, "MaxConfigFileBytes")
	if err != nil {
		return nil, fmt.Errorf("%w: config file %s: %w", ErrInvalidConfig, path, err)
	}
	bs, err := parseConfig(data, filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("%w: config file %s: %w", ErrInvalidConfig, path, err)
	}
	return bs, nil
}

// ParseConfig reads the backends of a configuration (JSON), each validated as New would,
// its credentials read from the environment and files (a relative "file:" path is relative
// to the working directory):
//
//	{"backends": [
//	  {"name": "web", "url": "https://mcp.example.com/mcp", "timeout": "5s", "maxConcurrent": 16,
//	   "rate": 50, "burst": 10, "breakerFailures": 5, "breakerCooldown": "10s",
//	   "headers": {"Authorization": "env:WEB_AUTHORIZATION"}},
//	  {"name": "api", "url": "https://api.example.com/mcp",
//	   "oauth": {"issuer": "https://auth.example.com", "clientId": "gateway",
//	             "clientSecret": "file:/run/secrets/api", "allowedOrigins": ["https://token.example.com"]}},
//	  {"name": "local", "command": "my-mcp-server", "args": ["--flag"], "env": ["MODE=quiet"]}
//	]}
//
// A credential is "env:NAME" (an environment variable, which must be set and not empty) or
// "file:PATH" (the file's content, one trailing newline trimmed, at most
// MaxSecretFileBytes); a literal is refused, so that the file holds no secret and can be
// shared. oauth has clientSecret or privateKeyFile (a PEM PKCS #8, SEC 1 or PKCS #1 key).
// An unknown field, a duplicate name or data after the object is an error.
func ParseConfig(data []byte) ([]Backend, error) {
	bs, err := parseConfig(data, "")
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	return bs, nil
}

func parseConfig(data []byte, dir string) ([]Backend, error) {
	var f configFile
	if err := decodeStrict(data, &f); err != nil {
		return nil, err
	}
	if len(f.Backends) == 0 {
		return nil, errors.New(`no "backends"`)
	}
	out := make([]Backend, 0, len(f.Backends))
	seen := map[string]bool{}
	for i, raw := range f.Backends {
		var j backendJSON
		if err := decodeStrict(raw, &j); err != nil {
			return nil, fmt.Errorf("backends[%d]: %w", i, err)
		}
		b, err := j.backend(dir)
		if err != nil {
			return nil, fmt.Errorf("backends[%d] (%q): %w", i, j.Name, err)
		}
		if err := b.check(); err != nil {
			return nil, fmt.Errorf("backends[%d]: %w", i, unwrapInvalid(err))
		}
		if seen[b.Name] {
			return nil, fmt.Errorf("backends[%d]: backend name %q given twice", i, b.Name)
		}
		seen[b.Name] = true
		out = append(out, b)
	}
	return out, nil
}

// decodeStrict decodes exactly one JSON value into v, refusing unknown fields.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), "json: ")) // `unknown field "x"` reads alone
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("data after the configuration's object")
	}
	return nil
}

// unwrapInvalid drops check's "gateway: invalid configuration: ", which the caller adds.
func unwrapInvalid(err error) error {
	return errors.New(strings.TrimPrefix(err.Error(), ErrInvalidConfig.Error()+": "))
}

func (j *backendJSON) backend(dir string) (Backend, error) {
	b := Backend{Name: j.Name, URL: j.URL, Command: j.Command, Args: j.Args, Env: j.Env,
		Timeout: time.Duration(j.Timeout), MaxConcurrent: j.MaxConcurrent, Rate: j.Rate, Burst: j.Burst,
		BreakerFailures: j.BreakerFailures, BreakerCooldown: time.Duration(j.BreakerCooldown)}
	seen := map[string]bool{}
	for _, name := range slices.Sorted(maps.Keys(j.Headers)) { // an error names the same one each time
		ref := j.Headers[name]
		if seen[strings.ToLower(name)] {
			return b, fmt.Errorf("headers: %s given twice", name)
		}
		seen[strings.ToLower(name)] = true
		v, err := readSecret(ref, dir)
		if err != nil {
			return b, fmt.Errorf("headers.%s: %w", name, err)
		}
		if strings.EqualFold(name, "Authorization") {
			b.Credentials.Authorization = v
			continue
		}
		if b.Credentials.Headers == nil {
			b.Credentials.Headers = map[string]Secret{}
		}
		b.Credentials.Headers[name] = v
	}
	if j.OAuth != nil {
		o := &OAuthClient{Issuer: j.OAuth.Issuer, ClientID: j.OAuth.ClientID, SigningAlgorithm: j.OAuth.SigningAlgorithm,
			AuthMethod: j.OAuth.AuthMethod, AllowedOrigins: j.OAuth.AllowedOrigins}
		var err error
		if j.OAuth.ClientSecret != "" {
			if o.ClientSecret, err = readSecret(j.OAuth.ClientSecret, dir); err != nil {
				return b, fmt.Errorf("oauth.clientSecret: %w", err)
			}
		}
		if j.OAuth.PrivateKeyFile != "" {
			if o.PrivateKey, err = readPrivateKey(relativeTo(dir, j.OAuth.PrivateKeyFile)); err != nil {
				return b, fmt.Errorf("oauth.privateKeyFile: %w", err)
			}
		}
		b.Credentials.OAuth = o
	}
	return b, nil
}

// readSecret reads a credential reference: "env:NAME" or "file:PATH".
func readSecret(ref, dir string) (Secret, error) {
	if name, ok := strings.CutPrefix(ref, "env:"); ok {
		v := os.Getenv(name)
		if v == "" {
			return "", fmt.Errorf("environment variable %s is not set", name)
		}
		return Secret(v), nil
	}
	if path, ok := strings.CutPrefix(ref, "file:"); ok && path != "" {
		data, err := readFileBounded(relativeTo(dir, path))
		if err != nil {
			return "", err
		}
		v := strings.TrimSuffix(strings.TrimSuffix(string(data), "\n"), "\r")
		if v == "" {
			return "", fmt.Errorf("%s is empty", path)
		}
		return Secret(v), nil
	}
	return "", errors.New(`want "env:NAME" or "file:PATH": a secret is not written in the configuration`)
}

// readPrivateKey reads a PEM private key that can sign: PKCS #8, SEC 1 (EC) or PKCS #1 (RSA).
func readPrivateKey(path string) (crypto.Signer, error) {
	data, err := readFileBounded(path)
	if err != nil {
		return nil, err
	}
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, fmt.Errorf("%s holds no PEM block", path)
	}
	var key any
	switch block.Type {
	case "PRIVATE KEY":
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(block.Bytes)
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	default:
		return nil, fmt.Errorf("%s: a %q PEM block is not a private key", path, block.Type)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	s, ok := key.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("%s: a %T cannot sign", path, key)
	}
	return s, nil
}

func readFileBounded(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := readBounded(f, MaxSecretFileBytes, "MaxSecretFileBytes")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return data, nil
}

// readBounded reads r to its end, refusing more than limit bytes.
func readBounded(r io.Reader, limit int, what string) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, int64(limit)+1))
	if err != nil {
		return nil, err
	}
	if len(data) > limit {
		return nil, fmt.Errorf("larger than %d bytes (%s)", limit, what)
	}
	return data, nil
}

func relativeTo(dir, path string) string {
	if dir == "" || filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(dir, path)
}
