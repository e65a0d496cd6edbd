package gemini

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
)

// process is one start of the CLI: in its own process group, with a private temp folder, its output read as it
// arrives and its end awaited on a goroutine of its own from the start. A cold run and a warm worker are started
// alike (Runner.launch); a warm one only waits longer for its prompt.
type process struct {
	cmd      *exec.Cmd
	stdin    *os.File   // the write end of the CLI's stdin
	stdout   relay      // what the CLI prints, kept until the run that takes the process reads it
	stderr   tailBuffer // read only once done is closed
	mcp      mcpWatch   // what stderr says of the MCP servers; read only once done is closed
	end      context.CancelFunc
	done     chan struct{} // closed once the CLI has exited, its group is killed and its output read
	exit     exitStatus    // set before done is closed
	exitedAt time.Time     // when the CLI exited; set before done is closed
	started  time.Time
}

// exitStatus is how the CLI's process ended.
type exitStatus struct {
	code int    // -1: killed by a signal, or never started
	desc string // "exit status 1", "signal: killed"
}

// start starts the CLI with args. Ending the process (end, or the context of the run that waits for it) sends
// the group SIGTERM, and SIGKILL after KillGrace. Once the CLI has exited, in any way, whatever is left of its
// group is killed, so no MCP server it started outlives it. The error is for a CLI that could not start.
func (r *Runner) start(args []string) (*process, error) {
	if err := checkDir(r.cfg.Dir); err != nil {
		return nil, &backend.Error{
			Code:     backend.CodeCLI,
			Message:  "The Gemini CLI's working folder cannot be used.",
			Hint:     "Check that the config folder exists and is a readable folder.",
			ExitCode: -1,
			Detail:   r.mask.Mask(err.Error()),
			Cause:    err,
		}
	}
	tmpDir, err := os.MkdirTemp("", "gemini-run-")
	if err != nil {
		return nil, fmt.Errorf("create temp dir: %w", err)
	}
	// Own pipes rather than exec's copying goroutines: Wait then returns as soon as the CLI exits, and the group
	// is killed right away instead of after WaitDelay when a grandchild holds the pipes. A pipe for stdin too,
	// so that the prompt can come later than the start.
	var pipes [3][2]*os.File // stdin, stdout, stderr: {read end, write end}
	for i := range pipes {
		if pipes[i][0], pipes[i][1], err = os.Pipe(); err != nil {
			closeAll(pipes[:i])
			os.RemoveAll(tmpDir)
			return nil, fmt.Errorf("pipe: %w", err)
		}
	}
	ctx, end := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, r.cfg.Command.Path, args...)
	cmd.Dir = r.cfg.Dir
	cmd.Env = buildEnv(os.Environ(), r.cfg.ExtraEnv, tmpDir)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = pipes[0][0], pipes[1][1], pipes[2][1]
	setProcessGroup(cmd)
	cmd.Cancel = func() error { return terminate(cmd.Process) }
	cmd.WaitDelay = r.cfg.KillGrace // then exec kills the CLI; killGroup gets the rest

	err = cmd.Start()
	for _, ours := range []*os.File{pipes[0][0], pipes[1][1], pipes[2][1]} {
		ours.Close() // the child holds its own copies
	}
	if err != nil {
		end()
		for _, f := range []*os.File{pipes[0][1], pipes[1][0], pipes[2][0]} {
			f.Close()
		}
		os.RemoveAll(tmpDir)
		return nil, r.startError(err)
	}
	contain(cmd.Process)
	p := &process{cmd: cmd, stdin: pipes[0][1], end: end, done: make(chan struct{}), started: time.Now()}
	p.stdout.pending.max = maxStderr
	p.stderr.max = maxStderr
	forget := r.recordRun(cmd.Process.Pid)
	go func() {
		p.reap(pipes[1][0], pipes[2][0])
		os.RemoveAll(tmpDir) // after the whole group is gone
		forget()
		close(p.done)
	}()
	return p, nil
}

// drainGrace is how long the rest of the output may take to read once the CLI's group is gone. What is left is
// at most what the pipes hold, but the answer's collector can be slow on a huge line; only a process that left
// the group keeps a pipe open for longer.
const drainGrace = 5 * time.Second

// holderCheck is how long the rest of the output may take before the processes that hold the pipes are looked for:
// once the CLI's group is gone, a holder is one of the run's that left the group.
const holderCheck = 250 * time.Millisecond

// reap waits for the CLI to exit, kills what is left of its group and reads the rest of its output, giving up on
// output still held open by a process that left the group after drainGrace.
func (p *process) reap(stdout, stderr *os.File) {
	var copies sync.WaitGroup
	copies.Go(func() { _, _ = io.Copy(&p.stdout, stdout) })
	copies.Go(func() { _, _ = io.Copy(io.MultiWriter(&p.stderr, &p.mcp), stderr) })

	defer stdout.Close()
	defer stderr.Close()

	waitErr := p.cmd.Wait()
	p.exitedAt = time.Now()
	killGroup(p.cmd.Process)
	p.end()
	p.stdin.Close() // unblocks a prompt still being written

	drained := make(chan struct{})
	go func() { copies.Wait(); close(drained) }()
	select {
	case <-drained:
	case <-time.After(holderCheck): // a process that left the group may hold the pipes (or the reading is slow)
		killPipeHolders(stdout, stderr)
		select {
		case <-drained:
		case <-time.After(drainGrace): // still held: stop reading
			stdout.Close()
			stderr.Close()
			<-drained
		}
	}

	p.exit = exitStatus{code: -1, desc: "unknown"}
	if p.cmd.ProcessState != nil {
		p.exit = exitStatus{code: p.cmd.ProcessState.ExitCode(), desc: p.cmd.ProcessState.String()}
	} else if waitErr != nil && !errors.As(waitErr, new(*exec.ExitError)) {
		p.exit.desc = waitErr.Error()
	}
}

// send gives the CLI its prompt and closes its stdin, on a goroutine of its own since a long prompt fills the
// pipe before the CLI reads it. The write ends when the CLI has read it all or has exited.
func (p *process) send(prompt string) {
	go func() {
		_, _ = io.WriteString(p.stdin, prompt)
		_ = p.stdin.Close()
	}()
}

// wait waits until the CLI has exited, ending it when ctx is done first.
func (p *process) wait(ctx context.Context) exitStatus {
	stop := context.AfterFunc(ctx, p.end)
	defer stop()
	<-p.done
	return p.exit
}

// endedBy reports whether ctx ended the CLI: it was done before the CLI exited of itself. A CLI that answered in
// time did not time out, even when the rest of its output came later (a process that left its group held the
// pipes). Only after wait.
func (p *process) endedBy(ctx context.Context) bool {
	if ctx.Err() == nil {
		return false
	}
	deadline, ok := ctx.Deadline()
	return !ok || !p.exitedAt.Before(deadline)
}

// exited reports whether the CLI has exited.
func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// relay passes on what it is given to the writer attached to it, keeping the first bytes that came before
// (a warm CLI's early output) to pass them on at the attach.
type relay struct {
	mu      sync.Mutex
	pending headBuffer
	to      io.Writer
}

func (r *relay) Write(b []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.to == nil {
		return r.pending.Write(b)
	}
	return r.to.Write(b)
}

func (r *relay) attach(w io.Writer) {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, _ = w.Write(r.pending.buf)
	r.pending.buf, r.to = nil, w
}

func closeAll(pipes [][2]*os.File) {
	for _, p := range pipes {
		p[0].Close()
		p[1].Close()
	}
}
