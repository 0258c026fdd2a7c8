// Package announce is what every peer does once listening: serve net/http/pprof on its own
// loopback listener when asked, and print the one JSON line fastmcp-bench reads,
// {"url":"http://…/mcp","pprof":"http://…/debug/pprof/"}, as `fastmcp-bench serve --pprof`
// does. compare reads the heap profile's runtime.MemStats from "pprof" before and after each
// run, for the allocations per request.
package announce

import (
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	_ "net/http/pprof" // the profiles, on http.DefaultServeMux
	"os"
	"time"
)

// line is the readiness line.
type line struct {
	URL   string `json:"url"`
	Pprof string `json:"pprof,omitempty"`
}

// Ready starts the pprof listener on pprofAddr (none if empty; it must be a loopback
// address) and prints the line for the MCP endpoint listening on ln.
func Ready(ln net.Listener, pprofAddr string) error {
	l := line{URL: "http://" + ln.Addr().String() + "/mcp"}
	if pprofAddr != "" {
		host, _, err := net.SplitHostPort(pprofAddr)
		if err != nil {
			return err
		}
		if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return fmt.Errorf("-pprof %s is not a loopback address", pprofAddr)
		}
		pl, err := net.Listen("tcp", pprofAddr)
		if err != nil {
			return err
		}
		hs := &http.Server{Handler: http.DefaultServeMux, ReadHeaderTimeout: 10 * time.Second}
		go func() {
			if err := hs.Serve(pl); !errors.Is(err, http.ErrServerClosed) {
				log.Println("pprof:", err)
			}
		}()
		l.Pprof = "http://" + pl.Addr().String() + "/debug/pprof/"
	}
	b, err := json.Marshal(l)
	if err != nil {
		return err
	}
	_, err = os.Stdout.Write(append(b, '\n'))
	return err
}
