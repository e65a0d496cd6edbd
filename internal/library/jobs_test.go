package library

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/library/record"
)

// crash ends l as a killed process would: its connections and its owner's lock go, and nothing is marked.
func crash(l *Library) {
	l.stop()
	l.polling.Wait()
	l.db.Close()
	l.owner.lock.Close()
}

func TestJobs(t *testing.T) {
	t.Parallel()
	l := open(t, dbPath(t), keepAll, nil)
	id := record.NewJobID()
	if !record.ValidJobID(id) {
		t.Fatalf("NewJobID: %q is not valid", id)
	}
	args := json.RawMessage(`{"topic":"rust 2024","depth":"detailed"}`)
	if err := l.PutJob(record.Job{ID: id, Tool: "deep_search", Topic: "rust 2024", Args: args}); err != nil {
		t.Fatal(err)
	}
	if err := l.PutJob(record.Job{ID: id, Tool: "search"}); err == nil {
		t.Error("a job id was kept twice")
	}
	if err := l.PutJob(record.Job{ID: "../x", Tool: "search"}); err == nil {
		t.Error("a malformed job id was kept")
	}
	j, err := l.Job(id)
	if err != nil || j.State != record.JobRunning || j.Tool != "deep_search" || string(j.Args) != string(args) ||
		j.Owner != l.Owner() || j.Started.IsZero() || !j.Ended.IsZero() {
		t.Fatalf("Job: %+v, %v", j, err)
	}

	if j, err = l.UpdateJob(id, func(j *record.Job) { j.Stage = "round 2 of 3"; j.Tool = "changed" }); err != nil ||
		j.Stage != "round 2 of 3" || j.Tool != "deep_search" {
		t.Errorf("UpdateJob of the stage: %+v, %v", j, err)
	}
	rid, err := l.Add(report("rust 2024", time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.UpdateJob(id, func(j *record.Job) { j.ReportID = "20261122T100000.000000-00000000" }); err == nil {
		t.Error("a job points to a report not kept")
	}
	if _, err := l.UpdateJob(id, func(j *record.Job) { j.State = "exploded" }); err == nil {
		t.Error("a job took a state that does not exist")
	}
	j, err = l.UpdateJob(id, func(j *record.Job) { j.State, j.ReportID = record.JobDone, rid })
	if err != nil || j.State != record.JobDone || j.Ended.IsZero() || j.ReportID != rid {
		t.Errorf("UpdateJob to done: %+v, %v; want it ended, with its report", j, err)
	}
	if again, err := l.Job(id); err != nil || again.State != record.JobDone || !again.Ended.Equal(j.Ended) ||
		again.ReportID != rid {
		t.Errorf("Job after it ended: %+v, %v", again, err)
	}
	if _, err := l.UpdateJob(record.NewJobID(), func(*record.Job) {}); !errors.Is(err, record.ErrNotFound) {
		t.Errorf("UpdateJob of a job not kept: %v, want ErrNotFound", err)
	}
	if _, err := l.Job(record.NewJobID()); !errors.Is(err, record.ErrNotFound) {
		t.Errorf("Job of a job not kept: %v, want ErrNotFound", err)
	}

	failed := record.NewJobID()
	if err := l.PutJob(record.Job{ID: failed, Tool: "search", Topic: "q"}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.UpdateJob(failed, func(j *record.Job) {
		j.State, j.ErrorCode, j.ErrorMessage, j.ErrorDetails = record.JobFailed, "QUOTA_EXCEEDED", "quota", "wait"
	}); err != nil {
		t.Fatal(err)
	}
	running := record.NewJobID()
	if err := l.PutJob(record.Job{ID: running, Tool: "ask", Topic: "r"}); err != nil {
		t.Fatal(err)
	}
	all, err := l.Jobs("", 0)
	if err != nil || len(all) != 3 || all[0].ID != running {
		t.Errorf("Jobs: %+v, %v; want three, the newest first", all, err)
	}
	if got, _ := l.Jobs(record.JobFailed, 0); len(got) != 1 || got[0].ErrorCode != "QUOTA_EXCEEDED" ||
		got[0].ErrorDetails != "wait" {
		t.Errorf("Jobs(failed): %+v", got)
	}
	if got, _ := l.Jobs(record.JobRunning, 0); len(got) != 1 || got[0].ID != running {
		t.Errorf("Jobs(running): %+v", got)
	}
}

// TestInterruptedJobs: a library opened after a server died marks that server's running jobs interrupted at once;
// a server that still runs keeps its jobs running, whoever looks; a server that closes marks its own.
func TestInterruptedJobs(t *testing.T) {
	t.Parallel()
	path := dbPath(t)
	put := func(l *Library) string {
		t.Helper()
		id := record.NewJobID()
		if err := l.PutJob(record.Job{ID: id, Tool: "deep_search", Topic: "long"}); err != nil {
			t.Fatal(err)
		}
		return id
	}
	state := func(l *Library, id string) record.Job {
		t.Helper()
		j, err := l.Job(id)
		if err != nil {
			t.Fatal(err)
		}
		return j
	}

	dead := open(t, path, keepAll, nil)
	finished := put(dead)
	if _, err := dead.UpdateJob(finished, func(j *record.Job) { j.State = record.JobDone }); err != nil {
		t.Fatal(err)
	}
	lost := put(dead)
	crash(dead)

	live := open(t, path, keepAll, nil)
	if j := state(live, lost); j.State != record.JobInterrupted || j.Ended.IsZero() ||
		!strings.Contains(j.ErrorMessage, "ended before it finished") {
		t.Errorf("the job of a server that died: %+v, want it interrupted at once", j)
	}
	if j := state(live, finished); j.State != record.JobDone {
		t.Errorf("a job that finished before the crash: %+v, want done", j)
	}
	mine := put(live)

	other := open(t, path, keepAll, nil) // a second server sharing the library
	theirs := put(other)
	if j := state(other, mine); j.State != record.JobRunning {
		t.Errorf("a live server's job, read by another: %+v, want running", j)
	}
	if running, _ := live.Jobs(record.JobRunning, 0); len(running) != 2 {
		t.Errorf("running jobs: %+v, want both live servers'", running)
	}

	crash(other)
	if j := state(live, theirs); j.State != record.JobInterrupted {
		t.Errorf("the job of a server that died while this one ran: %+v, want interrupted when read", j)
	}
	if err := live.Close(); err != nil {
		t.Fatal(err)
	}
	after := open(t, path, keepAll, nil)
	if j := state(after, mine); j.State != record.JobInterrupted ||
		!strings.Contains(j.ErrorMessage, "stopped before it finished") {
		t.Errorf("the job of a server that closed: %+v, want interrupted", j)
	}
	if running, _ := after.Jobs(record.JobRunning, 0); len(running) != 0 {
		t.Errorf("still running: %+v", running)
	}
	if ids := func() (ids []string) {
		all, _ := after.Jobs("", 0)
		for _, j := range all {
			ids = append(ids, j.ID)
		}
		return ids
	}(); !slices.Contains(ids, finished) || len(ids) != 4 {
		t.Errorf("jobs kept: %q, want all four", ids)
	}
}

// TestFinishedJobsRetention: finished jobs older than the age limit go; running ones stay.
func TestFinishedJobsRetention(t *testing.T) {
	t.Parallel()
	l := open(t, dbPath(t), keepAll, nil)
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	l.now = func() time.Time { return now }
	old, running := record.NewJobID(), record.NewJobID()
	for _, id := range []string{old, running} {
		if err := l.PutJob(record.Job{ID: id, Tool: "search", Topic: "t"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := l.UpdateJob(old, func(j *record.Job) { j.State = record.JobCancelled }); err != nil {
		t.Fatal(err)
	}
	now = now.Add(400 * 24 * time.Hour)
	l.SetRetention(Retention{MaxReports: 10, MaxAge: 365 * 24 * time.Hour})
	if _, err := l.Job(old); !errors.Is(err, record.ErrNotFound) {
		t.Errorf("a job that ended 400 days ago: %v, want it dropped", err)
	}
	if j, err := l.Job(running); err != nil || j.State != record.JobRunning {
		t.Errorf("a running job: %+v, %v; want it kept", j, err)
	}
}

// TestRunningElsewhere: the jobs another server sharing the library runs, newest first and at most the limit, not
// this server's own nor the finished ones, however many this server runs.
func TestRunningElsewhere(t *testing.T) {
	t.Parallel()
	path := dbPath(t)
	here, other := open(t, path, keepAll, nil), open(t, path, keepAll, nil)
	start := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	put := func(l *Library, topic string, started time.Time, state record.JobState) {
		t.Helper()
		if err := l.PutJob(record.Job{ID: record.NewJobID(), Tool: "search", Topic: topic, Started: started,
			State: state}); err != nil {
			t.Fatal(err)
		}
	}
	put(other, "theirs, first", start, record.JobRunning)
	put(other, "theirs, second", start.Add(time.Second), record.JobRunning)
	put(other, "theirs, done", start.Add(2*time.Second), record.JobDone)
	for i := range 60 {
		put(here, fmt.Sprintf("mine %d", i), start.Add(time.Duration(3+i)*time.Second), record.JobRunning)
	}
	for _, tt := range []struct {
		limit int
		want  string
	}{{0, "[theirs, second theirs, first]"}, {1, "[theirs, second]"}} {
		jobs, err := here.RunningElsewhere(tt.limit)
		var got []string
		for _, j := range jobs {
			got = append(got, j.Topic)
		}
		if err != nil || fmt.Sprint(got) != tt.want {
			t.Errorf("RunningElsewhere(%d) = %q, %v; want %s", tt.limit, got, err, tt.want)
		}
	}
}

// TestResumableJobs: a job that follows a remote run, interrupted by its server's crash or stop, is listed as
// resumable and taken by exactly one of the servers that try; jobs without a remote run, or not interrupted, are not.
func TestResumableJobs(t *testing.T) {
	t.Parallel()
	path := dbPath(t)
	remote := json.RawMessage(`{"id":"v1_abc","agent":"deep-research-preview-04-2026","last_event":"e7"}`)
	dead := open(t, path, keepAll, nil)
	following, plain, done := record.NewJobID(), record.NewJobID(), record.NewJobID()
	for _, id := range []string{following, plain, done} {
		if err := dead.PutJob(record.Job{ID: id, Tool: "deep_search", Topic: "agent"}); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range []string{following, done} {
		if _, err := dead.UpdateJob(id, func(j *record.Job) { j.Remote = remote }); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := dead.UpdateJob(done, func(j *record.Job) { j.State = record.JobDone }); err != nil {
		t.Fatal(err)
	}
	crash(dead)

	a, b := open(t, path, keepAll, nil), open(t, path, keepAll, nil)
	jobs, err := a.Resumable(time.Time{})
	if err != nil || len(jobs) != 1 || jobs[0].ID != following || string(jobs[0].Remote) != string(remote) {
		t.Fatalf("Resumable: %+v, %v; want the one interrupted job with a remote run, its run kept", jobs, err)
	}
	if later, _ := a.Resumable(jobs[0].Started.Add(time.Microsecond)); len(later) != 0 {
		t.Errorf("Resumable since after its start: %+v", later)
	}
	j, took, err := a.Adopt(following)
	if err != nil || !took || j.State != record.JobRunning || j.Owner != a.Owner() || !j.Ended.IsZero() ||
		j.ErrorMessage != "" || string(j.Remote) != string(remote) {
		t.Fatalf("Adopt: %+v, %v, %v; want it running again, this server's", j, took, err)
	}
	if _, took, err := b.Adopt(following); took || err != nil {
		t.Errorf("a second server took the job too (%v, %v)", took, err)
	}
	for _, id := range []string{plain, done} {
		if _, took, _ := b.Adopt(id); took {
			t.Errorf("job %s taken, which follows no remote run or is not interrupted", id)
		}
	}
	if j, _ := b.Job(following); j.State != record.JobRunning {
		t.Errorf("the job taken, read by another server: %+v, want running", j)
	}
}
