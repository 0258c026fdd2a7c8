package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// maxStateKeyFileBytes bounds the --state-key-file read: eight keys of a few hundred bytes
// and their comments fit many times over.
const maxStateKeyFileBytes = 64 << 10

// stateKeyOptions is the --state-key-file flag.
type stateKeyOptions struct{ file string }

func (o *stateKeyOptions) flags(fs *flag.FlagSet) {
	fs.StringVar(&o.file, "state-key-file", "", "`file` of requestState keys shared by replicas, one standard base64 key of at least 32 bytes per line (openssl rand -base64 32): the first seals, all open; reread on SIGHUP")
}

// readStateKeys reads and parses a key file.
func readStateKeys(path string) ([][]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxStateKeyFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxStateKeyFileBytes {
		return nil, fmt.Errorf("longer than %d bytes", maxStateKeyFileBytes)
	}
	return parseStateKeys(data)
}

// parseStateKeys reads one key per line, standard base64 with its padding (RFC 4648 section
// 4, as openssl rand -base64 32 prints it), ignoring surrounding spaces, blank lines and
// lines that start with #. It wants 1 to fastmcp.MaxStateKeys distinct keys of at least
// fastmcp.MinStateKeyBytes. Its errors name lines, never a key's bytes.
func parseStateKeys(data []byte) ([][]byte, error) {
	var keys [][]byte
	var lines []int // the line of each key
	for n, line := 1, []byte(nil); len(data) > 0; n++ {
		line, data, _ = bytes.Cut(data, []byte{'\n'})
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		key := make([]byte, base64.StdEncoding.DecodedLen(len(line)))
		k, err := base64.StdEncoding.Strict().Decode(key, line)
		switch {
		case err != nil:
			return nil, fmt.Errorf("line %d is not standard base64 (openssl rand -base64 32 makes a key)", n)
		case k < fastmcp.MinStateKeyBytes:
			return nil, fmt.Errorf("line %d: a key of %d bytes, at least %d are needed", n, k, fastmcp.MinStateKeyBytes)
		case len(keys) == fastmcp.MaxStateKeys:
			return nil, fmt.Errorf("line %d: more than %d keys", n, fastmcp.MaxStateKeys)
		}
		for i, prev := range keys {
			if bytes.Equal(prev, key[:k]) {
				return nil, fmt.Errorf("line %d repeats the key of line %d", n, lines[i])
			}
		}
		keys, lines = append(keys, key[:k]), append(lines, n)
	}
	if len(keys) == 0 {
		return nil, errors.New("no key: put one base64 key per line")
	}
	return keys, nil
}

// reloadStateKeys rereads path into srv, and into each of also (the gateway's task id
// keys), on every SIGHUP until ctx ends or stop is called; a file it cannot read or parse is
// logged and the keys in use stay.
func reloadStateKeys(ctx context.Context, path string, srv *fastmcp.Server, logger *slog.Logger, also ...func([][]byte) error) (stop func()) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	done := make(chan struct{})
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		for {
			select {
			case <-ctx.Done():
				return
			case <-done:
				return
			case <-hup:
				keys, err := readStateKeys(path)
				if err == nil {
					err = srv.SetStateKeys(keys)
				}
				for _, set := range also {
					if err == nil {
						err = set(keys)
					}
				}
				if err != nil {
					logger.Error("state keys not reloaded: the old keys stay", "file", path, "err", err)
					continue
				}
				logger.Info("state keys reloaded", "file", path, "keys", len(keys))
			}
		}
	}()
	return func() {
		signal.Stop(hup)
		close(done)
		<-exited
	}
}
