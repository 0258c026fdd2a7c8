package main

import (
	"fmt"
	"io"

	"github.com/fastmcp-go/fastmcp/internal/loadtest"
)

// stopMachine ends a window of the machine meter; where /proc cannot be read (not Linux) the
// state is nil and the report says it was not measured.
func stopMachine(m *loadtest.MachineMeter) (*loadtest.MachineState, string) {
	st, err := m.Stop()
	if err != nil {
		return nil, err.Error()
	}
	return st, ""
}

// machineCell is the machine row of a scenario in the results table, and its verdict.
func machineCell(st *loadtest.MachineState) (value, mark string) {
	value = fmt.Sprintf("other processes %.0f%%, steal %.1f%%, load %.2f", 100*st.Others, 100*st.Steal, st.Load1)
	if st.TooBusy() != "" {
		mark = "TOO BUSY"
	}
	return value, mark
}

// machineSuffix is appended to a progress line: the share other processes took.
func machineSuffix(st *loadtest.MachineState) string {
	if st == nil {
		return ""
	}
	s := fmt.Sprintf(" (other processes %.0f%% of the CPUs)", 100*st.Others)
	if st.TooBusy() != "" {
		s += " — MACHINE TOO BUSY"
	}
	return s
}

// printMachine prints the machine's state over the whole command, and a warning naming every
// scenario whose window was too busy for its figures to mean much.
func printMachine(w io.Writer, r *runReport) {
	fmt.Fprintln(w)
	if r.Machine != nil {
		fmt.Fprintf(w, "Machine over the whole run: %s.\n", r.Machine)
	} else {
		fmt.Fprintf(w, "Machine state not measured: %s.\n", r.MachineNote)
	}
	var busy []string
	for i := range r.Reports {
		rep := &r.Reports[i]
		if rep.Machine != nil && rep.Machine.TooBusy() != "" {
			busy = append(busy, fmt.Sprintf("%s %s: %s", rep.Scenario, rep.Target, rep.Machine.TooBusy()))
		}
	}
	if r.Machine != nil && r.Machine.TooBusy() != "" && len(busy) == 0 {
		busy = append(busy, "the whole run: "+r.Machine.TooBusy())
	}
	if len(busy) == 0 {
		fmt.Fprintf(w, "The machine was quiet enough (other processes ≤ %.0f%% of the CPUs, steal ≤ %.0f%%) in every scenario.\n",
			100*loadtest.MaxOtherShare, 100*loadtest.MaxStealShare)
		return
	}
	fmt.Fprintln(w, "WARNING: THE MACHINE WAS TOO BUSY for these figures to mean much; rates and tail latencies")
	advice := "Rerun when it is quiet"
	for i := range r.Reports {
		if _, ok := r.Reports[i].Metric("server CPU/request"); ok {
			advice += " (server CPU/request is the figure least disturbed)"
			break
		}
	}
	fmt.Fprintf(w, "measure its load, not the code. %s:\n", advice)
	for _, b := range busy {
		fmt.Fprintln(w, "  "+b)
	}
}
