package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readJournal reads a --tasks-journal file.
func readJournal(t *testing.T, path string) []journalLine {
	t.Helper()
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	defer f.Close()
	var lines []journalLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l journalLine
		require.NoError(t, json.Unmarshal(sc.Bytes(), &l), "journal line %q", sc.Text())
		lines = append(lines, l)
	}
	require.NoError(t, sc.Err())
	return lines
}

// markKilled appends the line that says pid was killed (and has exited): its runs without an
// end died with it.
func markKilled(t *testing.T, path string, pid int) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	require.NoError(t, err)
	line, err := json.Marshal(journalLine{Event: "killed", PID: pid, UnixNs: time.Now().UnixNano()})
	require.NoError(t, err)
	_, err = f.Write(append(line, '\n'))
	require.NoError(t, err)
	require.NoError(t, f.Close())
}

// waitRuns polls the journal until task has at least n runs begun, and returns their begin
// lines.
func waitRuns(t *testing.T, path, task string, n int, within time.Duration) []journalLine {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		var begun []journalLine
		for _, l := range readJournal(t, path) {
			if l.Task == task && l.Event == "begin" {
				begun = append(begun, l)
			}
		}
		if len(begun) >= n {
			return begun
		}
		require.Falsef(t, time.Now().After(deadline), "%d runs of task %s began within %v, want %d", len(begun), task, within, n)
		time.Sleep(20 * time.Millisecond) // a poll interval, bounded by the deadline above
	}
}

// waitEnded polls the journal until the run of task begun by begin has ended.
func waitEnded(t *testing.T, path string, begin journalLine, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		for _, l := range readJournal(t, path) {
			if l.Event == "end" && l.Task == begin.Task && l.Attempt == begin.Attempt && l.PID == begin.PID {
				return
			}
		}
		require.Falsef(t, time.Now().After(deadline), "run %d of task %s did not end within %v", begin.Attempt, begin.Task, within)
		time.Sleep(20 * time.Millisecond) // a poll interval, bounded by the deadline above
	}
}

// overlaps checks the journal's fencing: for each task, no run begins while another run of
// it is open in a live process. A run is open from its begin to its end; one of a process
// marked killed ends at the mark, since the process died with it. The file's order is the
// order of the events (one O_APPEND write each). It returns one message per violation, and
// one per run left open in a process that was not killed.
func overlaps(lines []journalLine) []string {
	type run struct {
		pid, attempt int
	}
	open := map[string][]run{} // by task
	var bad []string
	for i, l := range lines {
		switch l.Event {
		case "killed":
			for task, runs := range open {
				kept := runs[:0]
				for _, r := range runs {
					if r.pid != l.PID {
						kept = append(kept, r)
					}
				}
				open[task] = kept
			}
		case "begin":
			if len(open[l.Task]) > 0 {
				bad = append(bad, fmt.Sprintf("line %d: run %d of task %s (pid %d) began while %v was running", i+1, l.Attempt, l.Task, l.PID, open[l.Task]))
			}
			open[l.Task] = append(open[l.Task], run{l.PID, l.Attempt})
		case "end":
			runs, found := open[l.Task], false
			for j, r := range runs {
				if r == (run{l.PID, l.Attempt}) {
					open[l.Task], found = append(runs[:j:j], runs[j+1:]...), true
					break
				}
			}
			if !found {
				bad = append(bad, fmt.Sprintf("line %d: run %d of task %s (pid %d) ended without beginning", i+1, l.Attempt, l.Task, l.PID))
			}
		}
	}
	for task, runs := range open {
		for _, r := range runs {
			bad = append(bad, "run "+strconv.Itoa(r.attempt)+" of task "+task+" (pid "+strconv.Itoa(r.pid)+") never ended, and its process was not killed")
		}
	}
	return bad
}

// TestOverlaps checks the fencing check itself on literal journals.
func TestOverlaps(t *testing.T) {
	l := func(ev, task string, attempt, pid int) journalLine {
		return journalLine{Event: ev, Task: task, Attempt: attempt, PID: pid}
	}
	assert.Empty(t, overlaps([]journalLine{
		l("begin", "a", 1, 10), l("begin", "b", 1, 10), l("end", "b", 1, 10),
		l("killed", "", 0, 10),
		l("begin", "a", 2, 11), l("end", "a", 2, 11),
	}), "a run cut by the kill, rerun after it")
	assert.Len(t, overlaps([]journalLine{
		l("begin", "a", 1, 10), l("begin", "a", 2, 11), l("end", "a", 2, 11), l("end", "a", 1, 10),
	}), 1, "two runs of one task at once")
	assert.Len(t, overlaps([]journalLine{
		l("begin", "a", 1, 10), l("begin", "a", 2, 11), l("killed", "", 0, 10), l("end", "a", 2, 11),
	}), 1, "the kill comes after the second run began: they overlapped")
	assert.Len(t, overlaps([]journalLine{l("begin", "a", 1, 10)}), 1, "a run that never ended in a live process")
	assert.Len(t, overlaps([]journalLine{l("end", "a", 1, 10)}), 1, "an end without its begin")
}
