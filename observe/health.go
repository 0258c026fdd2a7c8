package observe

import "net/http"

// The health endpoints' paths, the same as the native listener's.
const (
	HealthzPath = "/healthz"
	ReadyzPath  = "/readyz"
)

// HealthHandler serves GET and HEAD of [HealthzPath], always 200 "ok", and [ReadyzPath],
// 200 "ready" while ready reports true and 503 "not ready" otherwise (from the start of a
// drain, so that a proxy stops sending before connections close); other methods get 405
// with Allow: GET, HEAD. Bodies are text/plain and never cached.
//
// It stands in for streamable.HealthHandler until that lands, with the same answers; pass
// the native listener's Ready as ready.
func HealthHandler(ready func() bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		status, body := http.StatusOK, "ok\n"
		switch {
		case r.URL.Path != HealthzPath && r.URL.Path != ReadyzPath:
			http.NotFound(w, r)
			return
		case r.Method != http.MethodGet && r.Method != http.MethodHead:
			w.Header().Set("Allow", "GET, HEAD")
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		case r.URL.Path == ReadyzPath && ready():
			body = "ready\n"
		case r.URL.Path == ReadyzPath:
			status, body = http.StatusServiceUnavailable, "not ready\n"
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(status)
		if r.Method != http.MethodHead {
			_, _ = w.Write([]byte(body))
		}
	})
}
