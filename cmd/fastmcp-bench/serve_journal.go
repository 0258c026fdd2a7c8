package main

import (
	"encoding/json"
	"os"
	"sync"
	"time"
)

// journalLine is one line of --tasks-journal: a run of the demo report tool began or ended.
// Lines are appended with one write each to a file opened O_APPEND, so the lines of several
// processes sharing the file keep the order in which they happened.
type journalLine struct {
	Event   string `json:"event"` // begin or end (a test adds killed)
	Task    string `json:"task,omitempty"`
	Attempt int    `json:"attempt,omitempty"`
	PID     int    `json:"pid"`
	UnixNs  int64  `json:"unix_ns"`
}

// runJournal appends journalLines to a file.
type runJournal struct {
	mu  sync.Mutex
	f   *os.File
	pid int
}

func openRunJournal(path string) (*runJournal, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	return &runJournal{f: f, pid: os.Getpid()}, nil
}

// record is a fixtures.RunJournal. A line that cannot be written is lost: the check that
// reads the journal then finds a run without its end and fails, as it should.
func (j *runJournal) record(task string, attempt int, end bool) {
	ev := "begin"
	if end {
		ev = "end"
	}
	line, _ := json.Marshal(journalLine{Event: ev, Task: task, Attempt: attempt, PID: j.pid, UnixNs: time.Now().UnixNano()})
	j.mu.Lock()
	defer j.mu.Unlock()
	_, _ = j.f.Write(append(line, '\n'))
}

func (j *runJournal) close() error { return j.f.Close() }
