package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/fastmcp-go/fastmcp/internal/loadtest"
)

// Settings of the tasks scenario.
const (
	// tasksCancelEvery: every tenth task is a long one (60 s) cancelled right after it is
	// created; the others take no time.
	tasksCancelEvery = 10
	// tasksPollInterval paces the polling of the tasks left unfinished after the window.
	tasksPollInterval = 50 * time.Millisecond
	// tasksSettleTimeout bounds the wait for every task to reach a terminal state.
	tasksSettleTimeout = 60 * time.Second
	// tasksRequestTimeout bounds one request.
	tasksRequestTimeout = 30 * time.Second
)

// tasksMeta is the request _meta of the scenario: the client declares the extension.
const tasksMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`

// tasksResult is the outcome of the tasks scenario.
type tasksResult struct {
	Target string `json:"target"`
	Store  string `json:"store"`
	// Created counts the tasks created in the window, by one caller, which alternates one
	// creation (a tools/call of the demo report tool answered with CreateTaskResult) and
	// one floor insert (a plain single-row INSERT + COMMIT on the same database).
	Created int64 `json:"created"`
	// CreateTime is the sum of the creations' latencies: Created over it is created/s.
	CreateTime time.Duration        `json:"create_time_ns"`
	Create     loadtest.Percentiles `json:"create"`
	// Floor is the floor inserts' latency; Floor.Count is 0 for a store without one.
	Floor loadtest.Percentiles `json:"floor"`
	// Cancelled counts the tasks tasks/cancel was sent for; the others are completions.
	// Completed, CancelledSeen and Other count the terminal states polled after the window;
	// Unsettled the tasks still not terminal at tasksSettleTimeout.
	Cancelled                       int64 `json:"cancel_sent"`
	Completed, CancelledSeen, Other int64
	Unsettled                       int64
	Settle                          time.Duration `json:"settle_ns"`
	Errors                          loadtest.Errors
}

// Ratio is the creations' mean latency over the floor's (the goal is at most 2), 0 without
// a floor.
func (r *tasksResult) Ratio() float64 {
	if r.Floor.Count == 0 || r.Floor.Mean == 0 {
		return 0
	}
	return float64(r.Create.Mean) / float64(r.Floor.Mean)
}

// Report implements loadtest.Reporter.
func (r *tasksResult) Report() loadtest.Report {
	rep := loadtest.Report{Scenario: "tasks", Target: r.Target, Errors: r.Errors, Latency: &r.Create}
	add := func(name string, v float64, u loadtest.Unit) {
		rep.Metrics = append(rep.Metrics, loadtest.Metric{Name: name, Value: v, Unit: u})
	}
	rate := 0.0
	if r.CreateTime > 0 {
		rate = float64(r.Created) / r.CreateTime.Seconds()
	}
	add("created/s", rate, loadtest.UnitPerSec)
	add("create p50", float64(r.Create.P50), loadtest.UnitDuration)
	add("create p99", float64(r.Create.P99), loadtest.UnitDuration)
	if r.Floor.Count > 0 {
		add("floor p50", float64(r.Floor.P50), loadtest.UnitDuration)
		add("floor p99", float64(r.Floor.P99), loadtest.UnitDuration)
		add("ratio", r.Ratio(), loadtest.UnitCount)
	} else {
		rep.Notes = append(rep.Notes, "the "+r.Store+" store has no physical floor: no ratio")
	}
	add("completed", float64(r.Completed), loadtest.UnitCount)
	add("cancelled", float64(r.CancelledSeen), loadtest.UnitCount)
	rep.Notes = append(rep.Notes, fmt.Sprintf("%s store: %d tasks created by one caller (%d cancelled right away), then polled to their ends for %s; ratio is the mean creation latency (tools/call over HTTP until CreateTaskResult) over the mean floor (one INSERT + COMMIT on the same database)",
		r.Store, r.Created, r.Cancelled, loadtest.FormatDuration(r.Settle)))
	if r.Other > 0 || r.Unsettled > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%d tasks ended neither completed nor cancelled, %d were not terminal after %s", r.Other, r.Unsettled, tasksSettleTimeout))
	}
	return rep
}

// tasksClient sends the scenario's requests over one keep-alive connection.
type tasksClient struct {
	url string
	hc  *http.Client
	id  int64
}

func newTasksClient(url string) *tasksClient {
	return &tasksClient{url: url, hc: &http.Client{Timeout: tasksRequestTimeout, Transport: &http.Transport{MaxIdleConnsPerHost: 1}}}
}

func (c *tasksClient) close() { c.hc.CloseIdleConnections() }

// errKind is a failed request, counted under its loadtest error kind.
type errKind string

func (e errKind) Error() string { return string(e) }

// call sends method with params (members without braces, _meta added) and decodes the
// result into out; the error is an errKind.
func (c *tasksClient) call(ctx context.Context, method, name, params string, out any) error {
	c.id++
	body := `{"jsonrpc":"2.0","id":` + strconv.FormatInt(c.id, 10) + `,"method":"` + method + `","params":{` + params + `,` + tasksMeta + `}}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewBufferString(body))
	if err != nil {
		return errKind(loadtest.KindWrite)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(loadtest.HeaderProtocolVersion, loadtest.ProtocolVersion)
	req.Header.Set(loadtest.HeaderMethod, method)
	req.Header.Set(loadtest.HeaderName, name)
	resp, err := c.hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return errKind(loadtest.KindClosed)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return errKind(loadtest.KindClosed)
	}
	if resp.StatusCode != http.StatusOK {
		return errKind(loadtest.KindStatusPrefix + strconv.Itoa(resp.StatusCode))
	}
	var env struct {
		ID     int64           `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(raw, &env) != nil {
		return errKind(loadtest.KindJSON)
	}
	switch {
	case env.Error != nil:
		return errKind(loadtest.KindRPCPrefix + strconv.Itoa(env.Error.Code))
	case env.ID != c.id:
		return errKind(loadtest.KindID)
	case json.Unmarshal(env.Result, out) != nil:
		return errKind(loadtest.KindShape)
	}
	return nil
}

// taskState is what the scenario reads of a task result.
type taskState struct {
	ResultType string `json:"resultType"`
	TaskID     string `json:"taskId"`
	Status     string `json:"status"`
}

// runTasksScenario drives ep for window: creation and floor alternately, a share of the tasks
// cancelled at once, then every task polled to a terminal state.
func runTasksScenario(ctx context.Context, ep *tasksEndpoint, window time.Duration, progress loadtest.ProgressFunc) (*tasksResult, error) {
	res := &tasksResult{Target: "fastmcp (" + ep.kind + ")", Store: ep.kind}
	c := newTasksClient(ep.url)
	defer c.close()
	var creates, floors []time.Duration
	var ids []string
	fail := func(err error) error {
		var k errKind
		if errors.As(err, &k) {
			res.Errors = addError(res.Errors, string(k))
			return nil
		}
		return err
	}
	start := time.Now()
	for i := 0; time.Since(start) < window; i++ {
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		long := i%tasksCancelEvery == tasksCancelEvery-1
		args := `{"topic":"bench ` + strconv.Itoa(i) + `","seconds":0}`
		if long {
			args = `{"topic":"bench ` + strconv.Itoa(i) + `","seconds":60}`
		}
		var st taskState
		t0 := time.Now()
		err := c.call(ctx, "tools/call", "report", `"name":"report","arguments":`+args, &st)
		d := time.Since(t0)
		if err == nil && (st.ResultType != "task" || st.TaskID == "") {
			err = errKind(loadtest.KindShape)
		}
		if err != nil {
			if err = fail(err); err != nil {
				return res, err
			}
			continue
		}
		creates, ids = append(creates, d), append(ids, st.TaskID)
		res.CreateTime += d
		if ep.floor != nil {
			body := []byte(args + tasksMeta) // as many bytes as the task's work
			t1 := time.Now()
			if err := ep.floor(ctx, "floor-"+st.TaskID, body); err != nil {
				return res, fmt.Errorf("floor insert: %w", err)
			}
			floors = append(floors, time.Since(t1))
		}
		if long {
			var ack struct{}
			if err := fail(c.call(ctx, "tasks/cancel", st.TaskID, `"taskId":"`+st.TaskID+`"`, &ack)); err != nil {
				return res, err
			}
			res.Cancelled++
		}
		if progress != nil && i%50 == 0 {
			progress(loadtest.Progress{Scenario: "tasks", Target: res.Target, Phase: "create", Elapsed: time.Since(start), Duration: window, Done: int64(len(ids)), Errors: res.Errors.Total()})
		}
	}
	res.Created = int64(len(ids))
	res.Create, res.Floor = percentiles(creates), percentiles(floors)
	settleStart := time.Now()
	err := settle(ctx, c, ids, res)
	res.Settle = time.Since(settleStart)
	return res, err
}

// settle polls every task until it is terminal, counting how each ended.
func settle(ctx context.Context, c *tasksClient, ids []string, res *tasksResult) error {
	deadline := time.Now().Add(tasksSettleTimeout)
	pending := ids
	for len(pending) > 0 {
		var left []string
		for _, id := range pending {
			var st taskState
			if err := c.call(ctx, "tasks/get", id, `"taskId":"`+id+`"`, &st); err != nil {
				var k errKind
				if !errors.As(err, &k) {
					return err
				}
				res.Errors = addError(res.Errors, string(k))
				continue
			}
			switch st.Status {
			case "completed":
				res.Completed++
			case "cancelled":
				res.CancelledSeen++
			case "failed":
				res.Other++
			default:
				left = append(left, id)
			}
		}
		pending = left
		if len(pending) == 0 {
			break
		}
		if time.Now().After(deadline) {
			res.Unsettled = int64(len(pending))
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(tasksPollInterval):
		}
	}
	return nil
}

func addError(e loadtest.Errors, kind string) loadtest.Errors {
	if e == nil {
		e = loadtest.Errors{}
	}
	e[kind]++
	return e
}

// percentiles summarizes exact latencies (nearest rank).
func percentiles(d []time.Duration) loadtest.Percentiles {
	if len(d) == 0 {
		return loadtest.Percentiles{}
	}
	s := slices.Clone(d)
	slices.Sort(s)
	var sum time.Duration
	for _, v := range s {
		sum += v
	}
	at := func(p float64) time.Duration { return s[int(p*float64(len(s)-1)/100)] }
	return loadtest.Percentiles{Count: int64(len(s)), Mean: sum / time.Duration(len(s)),
		P50: at(50), P90: at(90), P99: at(99), P999: at(99.9), Max: s[len(s)-1]}
}

// runTasks is the tasks scenario of run: the embedded endpoint with the store of
// --tasks-store (SQLite by default).
func runTasks(ctx context.Context, e *runEnv) (loadtest.Reporter, error) {
	if e.external() {
		return nil, errors.New("tasks runs against its embedded endpoint only: its floor needs the store's database (use --tasks-store)")
	}
	spec := e.o.tasksStore
	if spec == "" {
		spec = "sqlite"
	}
	ep, err := startTasksEndpoint(ctx, spec, e.o.tasksMigrate)
	if err != nil {
		return nil, err
	}
	defer ep.stop()
	window := e.o.duration
	if window == 0 {
		window = loadtest.DefaultDuration
	}
	return runTasksScenario(ctx, ep, window, e.progress)
}
