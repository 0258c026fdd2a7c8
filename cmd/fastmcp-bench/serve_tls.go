package main

import (
	"flag"

	"github.com/fastmcp-go/fastmcp/streamable"
)

// tlsOptions are serve's TLS and health flags, which only the native listener (--stack
// fasthttp) takes.
type tlsOptions struct {
	cert, key string
	health    bool
}

func (o *tlsOptions) flags(fs *flag.FlagSet) {
	fs.StringVar(&o.cert, "tls-cert", "", "serve HTTPS with the PEM certificate chain in this `file` (with --tls-key; reloaded when the files change, without a restart)")
	fs.StringVar(&o.key, "tls-key", "", "the PEM private key of --tls-cert, in this `file`")
	fs.BoolVar(&o.health, "health", false, "also serve GET /healthz (200 while serving) and /readyz (503 from the start of a drain) on the MCP listener, before the gate and the Host check")
}

// check refuses the flags where they cannot apply: a certificate without its key, or any of
// them on a stack other than the native listener, whose host owns TLS and probes.
func (o *tlsOptions) check(stack string, stdio bool) error {
	used := o.cert != "" || o.key != "" || o.health
	switch {
	case (o.cert == "") != (o.key == ""):
		return usageError("--tls-cert and --tls-key go together")
	case used && stdio:
		return usageError("--tls-cert, --tls-key and --health serve HTTP: not with --stdio")
	case used && stack != "fasthttp":
		return usageError("--tls-cert, --tls-key and --health are the native listener's: only with --stack fasthttp")
	}
	return nil
}

// apply sets the flags in the native listener's configuration.
func (o *tlsOptions) apply(cfg streamable.ListenerConfig) streamable.ListenerConfig {
	cfg.TLSCertFile, cfg.TLSKeyFile, cfg.ServeHealth = o.cert, o.key, o.health
	return cfg
}
