package loadtest

import (
	"fmt"
	"time"
)

// Unit is the unit of a Metric's value.
type Unit string

// Units of metrics.
const (
	UnitRate     Unit = "req/s"
	UnitPerSec   Unit = "/s"
	UnitDuration Unit = "ns"
	UnitCount    Unit = "count"
	UnitBytes    Unit = "bytes"
)

// Metric is one figure of a scenario's result.
type Metric struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Unit  Unit    `json:"unit"`
	// Runs, when above 1, says Value is the median of that many runs, which ranged from Min
	// to Max ([MedianReport]).
	Runs int     `json:"runs,omitempty"`
	Min  float64 `json:"min,omitempty"`
	Max  float64 `json:"max,omitempty"`
}

// String formats the value with its unit: "153.2k req/s", "812µs", "0", "18.4 KiB"; a
// median of several runs that differed is followed by their range: "36.2k req/s
// (14.9k–54.6k)".
func (m Metric) String() string {
	s := m.format(m.Value, true)
	if m.Runs > 1 && m.Min != m.Max {
		s += " (" + m.format(m.Min, false) + "–" + m.format(m.Max, false) + ")"
	}
	return s
}

// format formats v in m's unit; a rate's unit is left out of a range.
func (m Metric) format(v float64, unit bool) string {
	switch m.Unit {
	case UnitRate, UnitPerSec:
		if !unit {
			return humanCount(v)
		}
		return fmt.Sprintf("%s %s", humanCount(v), m.Unit)
	case UnitDuration:
		return FormatDuration(time.Duration(v))
	case UnitBytes:
		return humanBytes(v)
	}
	if v == float64(int64(v)) {
		return fmt.Sprintf("%d", int64(v))
	}
	return fmt.Sprintf("%.3g", v)
}

// Report is the common view of every scenario's result: what the command prints in its
// table, writes as JSON and plots.
type Report struct {
	Scenario string   `json:"scenario"`
	Target   string   `json:"target"`
	Metrics  []Metric `json:"metrics"`
	// Errors counts the failed requests by kind; a run with errors says so.
	Errors Errors `json:"errors"`
	// Latency is the scenario's main latency distribution, if it has one.
	Latency *Percentiles `json:"latency,omitempty"`
	// Notes are findings worth a line of their own (a backlog, a lost request...).
	Notes []string `json:"notes,omitempty"`
	// Machine is the machine's state during the scenario, when the caller measured it
	// ([StartMachine]): a busy machine makes every other figure of the report doubtful.
	Machine *MachineState `json:"machine,omitempty"`
}

// Metric returns the named metric's value and whether it exists.
func (r *Report) Metric(name string) (float64, bool) {
	for _, m := range r.Metrics {
		if m.Name == name {
			return m.Value, true
		}
	}
	return 0, false
}

func (r *Report) add(name string, v float64, u Unit) {
	r.Metrics = append(r.Metrics, Metric{Name: name, Value: v, Unit: u})
}

func (r *Report) addDur(name string, d time.Duration) { r.add(name, float64(d), UnitDuration) }

// addPercentiles adds p50, p90, p99, p99.9 and max under prefix.
func (r *Report) addPercentiles(prefix string, p Percentiles) {
	r.addDur(prefix+"p50", p.P50)
	r.addDur(prefix+"p90", p.P90)
	r.addDur(prefix+"p99", p.P99)
	r.addDur(prefix+"p99.9", p.P999)
	r.addDur(prefix+"max", p.Max)
}

// Reporter is implemented by every scenario result.
type Reporter interface {
	Report() Report
}

// FormatDuration prints d with three significant digits: 812µs, 1.24ms, 3.00s.
func FormatDuration(d time.Duration) string {
	switch {
	case d == 0:
		return "0"
	case d < time.Microsecond:
		return fmt.Sprintf("%dns", d)
	case d < time.Millisecond:
		return sig3(float64(d)/1e3) + "µs"
	case d < time.Second:
		return sig3(float64(d)/1e6) + "ms"
	}
	return sig3(float64(d)/1e9) + "s"
}

func sig3(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

func humanCount(v float64) string {
	switch {
	case v >= 1e6:
		return sig3(v/1e6) + "M"
	case v >= 1e4:
		return sig3(v/1e3) + "k"
	case v >= 100 || v == float64(int64(v)):
		return fmt.Sprintf("%.0f", v)
	}
	return sig3(v)
}

func humanBytes(v float64) string {
	switch {
	case v >= 1<<20:
		return sig3(v/(1<<20)) + " MiB"
	case v >= 1<<10:
		return sig3(v/(1<<10)) + " KiB"
	}
	return fmt.Sprintf("%.0f B", v)
}

// errorNote is the line a report carries when requests failed.
func errorNote(e Errors, total int64) string {
	return fmt.Sprintf("ERRORS: %d of %d requests failed (%s)", e.Total(), total+e.Total(), e)
}
