package main

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"strings"
	"time"

	"github.com/fastmcp-go/fastmcp/internal/loadtest"
)

// writeHTML writes one self-contained page: a latency percentile plot (inline SVG, no
// scripts) and a table per scenario.
func writeHTML(w io.Writer, r *runReport) error {
	type row struct {
		Name, Value, Goal string
		Miss              bool
	}
	type section struct {
		Title  string
		Rows   []row
		Errors string
		Notes  []string
	}
	var sections []section
	for i := range r.Reports {
		rep := &r.Reports[i]
		s := section{Title: rep.Scenario + " — " + rep.Target, Errors: rep.Errors.String(), Notes: rep.Notes}
		for _, m := range rep.Metrics {
			g := goalMark(rep, m)
			s.Rows = append(s.Rows, row{m.Name, m.String(), g, strings.HasSuffix(g, "MISSED")})
		}
		if rep.Machine != nil {
			v, mark := machineCell(rep.Machine)
			s.Rows = append(s.Rows, row{"machine", v, mark, mark != ""})
		}
		sections = append(sections, s)
	}
	var machine, legend strings.Builder
	printMachine(&machine, r)
	printLegend(&legend, r)
	data := struct {
		R               *runReport
		Plot            template.HTML
		Sections        []section
		Compare         [][]string
		Paths           string
		Machine, Legend string
	}{R: r, Plot: template.HTML(percentilePlot(r.Reports)), Sections: sections,
		Machine: strings.TrimSpace(machine.String()), Legend: strings.TrimSpace(legend.String())}
	if r.Comparison != nil {
		data.Compare = r.Comparison.table()
		var paths strings.Builder
		printPaths(&paths, r.Comparison)
		data.Paths = strings.TrimSpace(paths.String())
	}
	return pageTemplate.Execute(w, data)
}

var pageTemplate = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>fastmcp-bench {{.R.Command}}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:2em auto;max-width:960px;color:#222}
h1{font-size:1.4em} h2{font-size:1.1em;margin-top:1.6em}
table{border-collapse:collapse;margin:.4em 0} td,th{padding:.2em .8em;border-bottom:1px solid #ddd;text-align:left}
td.v{text-align:right;font-variant-numeric:tabular-nums} .miss{color:#b00;font-weight:bold} .note{color:#555}
svg text{font:11px system-ui,sans-serif}
</style></head><body>
<h1>fastmcp-bench {{.R.Command}}</h1>
<p>{{.R.Version}} · {{.R.Started.Format "2006-01-02 15:04:05 MST"}} · {{.R.Target}} · {{printf "%.1f" .R.Elapsed.Seconds}} s</p>
<pre>{{.Machine}}</pre>
{{if .Compare}}<h2>Comparison: medians (min–max) of interleaved rounds; ratios of the medians</h2><table>
{{range $i, $r := .Compare}}<tr>{{range $r}}{{if eq $i 0}}<th>{{.}}</th>{{else}}<td class="v">{{.}}</td>{{end}}{{end}}</tr>
{{end}}</table>{{if .Paths}}<pre>{{.Paths}}</pre>{{end}}{{end}}
{{if .Plot}}<h2>Latency by percentile</h2>{{.Plot}}{{end}}
{{range .Sections}}<h2>{{.Title}}</h2><table>
{{range .Rows}}<tr><td>{{.Name}}</td><td class="v">{{.Value}}</td><td{{if .Miss}} class="miss"{{end}}>{{.Goal}}</td></tr>
{{end}}<tr><td>errors</td><td class="v">{{.Errors}}</td><td></td></tr></table>
{{range .Notes}}<p class="note">{{.}}</p>{{end}}
{{end}}
{{range .R.Failures}}<p class="miss">FAILED {{.}}</p>{{end}}
<pre class="note">{{.Legend}}</pre>
</body></html>
`))

// percentilePlot draws every report's latency curve: x is the percentile on a 1/(1-p) log
// axis (50, 90, 99, 99.9…), y the latency on a log axis.
func percentilePlot(reports []loadtest.Report) string {
	type series struct {
		name string
		pts  []loadtest.CurvePoint
	}
	var all []series
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range reports {
		if r.Latency == nil || len(r.Latency.Curve) == 0 {
			continue
		}
		all = append(all, series{r.Scenario + " " + r.Target, r.Latency.Curve})
		for _, p := range r.Latency.Curve {
			if p.Latency > 0 {
				lo = math.Min(lo, float64(p.Latency))
				hi = math.Max(hi, float64(p.Latency))
			}
		}
	}
	if len(all) == 0 || lo >= hi {
		return ""
	}
	const W, H, left, bottom, top, right = 900.0, 420.0, 70.0, 40.0, 20.0, 200.0
	maxX := 5.0 // 99.999th percentile
	xOf := func(p float64) float64 {
		x := maxX
		if p < 100 {
			x = math.Min(maxX, math.Log10(1/(1-p/100)))
		}
		return left + x/maxX*(W-left-right)
	}
	lo10, hi10 := math.Floor(math.Log10(lo)), math.Ceil(math.Log10(hi))
	if hi10 == lo10 {
		hi10++
	}
	yOf := func(ns float64) float64 {
		v := math.Max(math.Log10(math.Max(ns, 1)), lo10)
		return top + (1-(v-lo10)/(hi10-lo10))*(H-top-bottom)
	}
	colors := []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f">`, W, H, W, H)
	for _, p := range []float64{0, 90, 99, 99.9, 99.99, 99.999} {
		x := xOf(p)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#eee"/><text x="%.1f" y="%.1f" text-anchor="middle">%g%%</text>`,
			x, top, x, H-bottom, x, H-bottom+16, p)
	}
	for e := lo10; e <= hi10; e++ {
		y := yOf(math.Pow(10, e))
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#eee"/><text x="%.1f" y="%.1f" text-anchor="end">%s</text>`,
			left, y, W-right, y, left-6, y+4, loadtest.FormatDuration(time.Duration(math.Pow(10, e))))
	}
	for i, s := range all {
		c := colors[i%len(colors)]
		var pts []string
		for _, p := range s.pts {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", xOf(p.Percentile), yOf(float64(p.Latency))))
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>`, c, strings.Join(pts, " "))
		fmt.Fprintf(&b, `<rect x="%.0f" y="%.0f" width="12" height="3" fill="%s"/><text x="%.0f" y="%.0f">%s</text>`,
			W-right+12, top+float64(i)*18+6, c, W-right+30, top+float64(i)*18+10, template.HTMLEscapeString(s.name))
	}
	fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" text-anchor="middle">percentile</text></svg>`, (W-right+left)/2, H-4)
	return b.String()
}
