package streamable

import (
	"net/http"

	"github.com/valyala/fasthttp"
)

// The health endpoints' paths.
const (
	// HealthzPath answers 200 while the process serves HTTP at all (liveness).
	HealthzPath = "/healthz"
	// ReadyzPath answers 200 while the server takes requests, 503 otherwise (readiness).
	ReadyzPath = "/readyz"
)

// The health responses' bodies.
const (
	healthyBody  = "ok\n"
	readyBody    = "ready\n"
	notReadyBody = "not ready\n"
)

// healthAnswer is a health endpoint's response.
type healthAnswer struct {
	status int
	body   string
	allow  bool // 405: Allow: GET, HEAD
}

// answerHealth answers method on path, or reports false when path is not a health path.
// ready is called only for ReadyzPath.
func answerHealth(method, path string, ready func() bool) (healthAnswer, bool) {
	if path != HealthzPath && path != ReadyzPath {
		return healthAnswer{}, false
	}
	switch {
	case method != http.MethodGet && method != http.MethodHead:
		return healthAnswer{status: http.StatusMethodNotAllowed, allow: true}, true
	case path == HealthzPath:
		return healthAnswer{status: http.StatusOK, body: healthyBody}, true
	case ready():
		return healthAnswer{status: http.StatusOK, body: readyBody}, true
	default:
		return healthAnswer{status: http.StatusServiceUnavailable, body: notReadyBody}, true
	}
}

// isHealthPath reports whether path is one of the health endpoints'.
func isHealthPath(path []byte) bool {
	return string(path) == HealthzPath || string(path) == ReadyzPath
}

// Ready reports whether the listener wants requests: from Serve until Shutdown begins (or
// Serve fails). GET /readyz answers 503 from the first moment of Shutdown, through its
// DrainDelay (when the listener still accepts and serves) and the drain (when requests in
// flight still finish), so a proxy polling it stops sending before connections are refused.
// It is what a metrics listener's /readyz should report ([HealthHandler]).
func (s *Server) Ready() bool {
	s.mu.Lock()
	served := s.served
	s.mu.Unlock()
	return served && !s.unready.Load() && !s.draining.Load() && !s.serveEnded.Load()
}

// HealthHandler serves GET (and HEAD) [HealthzPath], always 200 "ok", and [ReadyzPath], 200
// "ready" while ready reports true and 503 "not ready" otherwise, to mount on a net/http
// server such as a metrics listener; other methods get 405 with Allow: GET, HEAD, other paths
// 404. With a native listener, ready is [Server.Ready]. Bodies are text/plain, never cached.
func HealthHandler(ready func() bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a, ok := answerHealth(r.Method, r.URL.Path, ready)
		if !ok {
			http.NotFound(w, r)
			return
		}
		h := w.Header()
		if a.allow {
			h.Set("Allow", "GET, HEAD")
			w.WriteHeader(a.status)
			return
		}
		h.Set("Content-Type", "text/plain; charset=utf-8")
		h.Set("Cache-Control", "no-store")
		w.WriteHeader(a.status)
		if r.Method != http.MethodHead {
			_, _ = w.Write([]byte(a.body))
		}
	})
}

// HealthRequestHandler is [HealthHandler] for a fasthttp server.
func HealthRequestHandler(ready func() bool) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		if !writeHealth(ctx, ready) {
			ctx.Error("404 page not found\n", http.StatusNotFound)
		}
	}
}

// writeHealth answers a health request into ctx, or reports false when its path is not a
// health path.
func writeHealth(ctx *fasthttp.RequestCtx, ready func() bool) bool {
	a, ok := answerHealth(string(ctx.Method()), string(ctx.Path()), ready)
	if !ok {
		return false
	}
	ctx.SetStatusCode(a.status)
	if a.allow {
		ctx.Response.Header.Set("Allow", "GET, HEAD")
		return true
	}
	ctx.SetContentType("text/plain; charset=utf-8")
	ctx.Response.Header.Set("Cache-Control", "no-store")
	ctx.SetBodyString(a.body) // fasthttp leaves a HEAD's body out and keeps its length
	return true
}

// serveHealth answers a request to a health path on the main listener when
// ListenerConfig.ServeHealth is on, before the request gate and without the Origin and Host checks
// (see ListenerConfig.ServeHealth); it reports whether it answered.
func (s *Server) serveHealth(ctx *fasthttp.RequestCtx) bool {
	return s.cfg.ServeHealth && writeHealth(ctx, s.Ready)
}

// skipsGate reports whether the request ctx heads goes to a health endpoint, which the
// gate does not see.
func (s *Server) skipsGate(ctx *fasthttp.RequestCtx) bool {
	return s.cfg.ServeHealth && isHealthPath(ctx.Path())
}
