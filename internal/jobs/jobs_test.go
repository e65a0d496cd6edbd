package jobs

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/library/record"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
)

func size(s string) int { return len(s) }

// start is r.Start, which must start the job.
func start(t *testing.T, r *Registry[string], ctx context.Context, topic string, run func(context.Context, *Job[string]) (string, error)) *Job[string] {
	t.Helper()
	job, err := r.Start(ctx, "search", topic, run)
	if err != nil {
		t.Fatal(err)
	}
	return job
}

// A job runs on after the context that started it ends, its followers hear its stage when they come and then every
// stage in order, and its outcome is there for a later Get.
func TestJobOutlivesItsStarter(t *testing.T) {
	t.Parallel()
	r := New(context.Background(), Options[string]{Size: size})
	ctx, cancel := context.WithCancel(context.Background())
	release := make(chan struct{})
	job := start(t, r, ctx, "q", func(ctx context.Context, j *Job[string]) (string, error) {
		<-release
		j.SetStage("searching")
		j.SetStage("writing")
		return "report", ctx.Err()
	})

	var heard []string
	stop := job.Follow(func(stage string) { heard = append(heard, stage) })
	cancel()
	if job.Wait(context.Background(), 0) {
		t.Fatal("the job ended with the context that started it")
	}
	if !record.ValidJobID(job.ID) || r.Get(job.ID) != job || len(r.Running()) != 1 {
		t.Fatalf("job %q is not held as running", job.ID)
	}
	close(release)
	if !job.Wait(context.Background(), -1) {
		t.Fatal("Wait without a budget returned before the job ended")
	}
	stop()
	if res, err := job.Outcome(); res != "report" || err != nil {
		t.Errorf("outcome %q, %v; want the report", res, err)
	}

	if !slices.Equal(heard, []string{"starting", "searching", "writing"}) || job.Stage() != "writing" {
		t.Errorf("heard %q, stage %q", heard, job.Stage())
	}
	testkit.WaitFor(t, "the registry to list the job as finished", func() bool { return len(r.Running()) == 0 })
	if r.Get(job.ID) != job {
		t.Error("a finished job is not kept for Get")
	}
}

// Cancel and the registry's lifetime end a job's context, with their cause.
func TestJobEnds(t *testing.T) {
	t.Parallel()
	lifetime, shutdown := context.WithCancelCause(context.Background())
	r := New(lifetime, Options[string]{Size: size})
	run := func(ctx context.Context, _ *Job[string]) (string, error) {
		<-ctx.Done()
		return "", context.Cause(ctx)
	}
	why := errors.New("research_cancel was called")
	cancelled := start(t, r, context.Background(), "a", run)
	cancelled.Cancel(why)
	stopped := start(t, r, context.Background(), "b", run)
	shutdown(errors.New("shutting down"))
	for job, want := range map[*Job[string]]string{cancelled: why.Error(), stopped: "shutting down"} {
		job.Wait(context.Background(), -1)
		if _, err := job.Outcome(); err == nil || err.Error() != want {
			t.Errorf("job %s ended with %v, want %q", job.Topic, err, want)
		}
	}
}

// Finished jobs go after Kept, with their results.
func TestFinishedJobsExpire(t *testing.T) {
	t.Parallel()
	r := New(context.Background(), Options[string]{Size: size})
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	r.now = func() time.Time { return now }
	job := start(t, r, context.Background(), "q", func(context.Context, *Job[string]) (string, error) { return "report", nil })
	job.Wait(context.Background(), -1)
	testkit.WaitFor(t, "the job to be kept as finished", func() bool { return len(r.Running()) == 0 })
	if held := r.Sweep(now.Add(Kept - time.Second)); held != len("report") || r.Get(job.ID) == nil {
		t.Fatalf("held %d before its time, want the result", held)
	}
	now = now.Add(Kept + time.Second)
	if held := r.Sweep(now); held != 0 || r.Get(job.ID) != nil {
		t.Errorf("held %d after its time, want nothing", held)
	}
}

// A run that panics ends its job with the panic as its error, not the server; Wait waits for every run.
func TestPanicIsTheJobsError(t *testing.T) {
	t.Parallel()
	r := New(context.Background(), Options[string]{Size: size})
	job := start(t, r, context.Background(), "p", func(context.Context, *Job[string]) (string, error) {
		panic("a bug in the research")
	})
	r.Wait(context.Background())
	if _, err := job.Outcome(); err == nil || !strings.Contains(err.Error(), "a bug in the research") {
		t.Errorf("a run that panicked ended with %v, want the panic as its error", err)
	}
}

// Past MaxRunning jobs running, Start refuses a new one until one ends.
func TestMaxRunning(t *testing.T) {
	t.Parallel()
	r := New(context.Background(), Options[string]{Size: size, MaxRunning: 2})
	release := make(chan struct{})
	run := func(context.Context, *Job[string]) (string, error) { <-release; return "", nil }
	first := start(t, r, context.Background(), "a", run)
	start(t, r, context.Background(), "b", run)
	if _, err := r.Start(context.Background(), "search", "c", run); !errors.Is(err, ErrFull) {
		t.Fatalf("a third job while two run: %v, want ErrFull", err)
	}
	close(release)
	first.Wait(context.Background(), -1)
	testkit.WaitFor(t, "room for a job", func() bool { return len(r.Running()) < 2 })
	start(t, r, context.Background(), "d", run)
}

// Ended is told how each job ended, a run that panicked included, before its end is seen; the draft goes with it.
func TestEndedIsToldOfEveryEnd(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	ended := map[string]error{}
	r := New(context.Background(), Options[string]{Size: size, Ended: func(j *Job[string], err error) {
		if j.Draft() != "a draft" { // still there while the job's end is kept
			err = errors.New("the draft went before Ended was told")
		}
		mu.Lock()
		defer mu.Unlock()
		ended[j.Topic] = err
	}})
	ok := start(t, r, context.Background(), "ok", func(_ context.Context, j *Job[string]) (string, error) {
		j.SetDraft("a draft")
		return "report", nil
	})
	panicked := start(t, r, context.Background(), "panic", func(_ context.Context, j *Job[string]) (string, error) {
		j.SetDraft("a draft")
		panic("a bug in the research")
	})
	r.Wait(context.Background())
	if err := ended["ok"]; err != nil {
		t.Errorf("Ended of a job that ended well: %v", err)
	}
	if err := ended["panic"]; err == nil || !strings.Contains(err.Error(), "a bug in the research") {
		t.Errorf("Ended of a run that panicked: %v, want the panic", err)
	}
	if ok.Draft() != "" || panicked.Draft() != "" {
		t.Error("a finished job keeps its draft")
	}
}
