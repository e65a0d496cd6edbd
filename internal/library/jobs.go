package library

import (
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/library/record"
)

// jobColumns are the columns a record.Job is read from.
const jobColumns = `id, tool, topic, args, state, stage, started, ended, report_id, error_code, error_message,
	error_details, owner, remote`

// Messages of the jobs the library marks interrupted.
const (
	interruptedGone   = "the server that ran this research ended before it finished (it crashed or was killed)"
	interruptedClosed = "the server that ran this research stopped before it finished"
)

// Owner is the id of this library's owner: the jobs it puts are its own (record.Job.Owner).
func (l *Library) Owner() string {
	if !l.ready() {
		return ""
	}
	return l.owner.id
}

// PutJob keeps a new job j, owned by this library. Its ID must be a valid job id (record.NewJobID) not kept yet;
// a State of "" is running, a zero Started is now. Its Owner is this library's, whatever j says.
func (l *Library) PutJob(j record.Job) error {
	if !l.ready() {
		return nil
	}
	if !record.ValidJobID(j.ID) {
		return fmt.Errorf("keep job %q: not a job id", j.ID)
	}
	if j.State == "" {
		j.State = record.JobRunning
	}
	if j.Started.IsZero() {
		j.Started = l.now()
	}
	j.Owner = l.owner.id
	if err := checkJob(&j, l.now()); err != nil {
		return err
	}
	_, err := l.db.Exec(`INSERT INTO jobs (`+jobColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		jobValues(j)...)
	if err != nil {
		return fmt.Errorf("keep job %s: %w", j.ID, err)
	}
	l.changed.Notify()
	return nil
}

// UpdateJob changes the job id through change, in one transaction, and returns it as kept: its Stage, State,
// Ended, ReportID, error fields and Remote (its ID, Tool, Topic, Args, Started and Owner stay). A final state without an end
// ends it now; a ReportID must name a kept report. ErrNotFound for a job not kept; a library that keeps nothing (nil,
// or one that could not open) updates nothing and answers no error, as it answered PutJob.
func (l *Library) UpdateJob(id string, change func(*record.Job)) (record.Job, error) {
	if !record.ValidJobID(id) {
		return record.Job{}, record.ErrNotFound
	}
	if !l.ready() {
		return record.Job{}, nil // it kept no job: nothing to update
	}
	var j record.Job
	err := inTx(l.db, func(tx *sql.Tx) error {
		var err error
		if j, err = scanJob(tx.QueryRow(`SELECT `+jobColumns+` FROM jobs WHERE id = ?`, id)); err != nil {
			return err
		}
		was := j
		change(&j)
		j.ID, j.Tool, j.Topic, j.Args, j.Started, j.Owner = was.ID, was.Tool, was.Topic, was.Args, was.Started, was.Owner
		if err := checkJob(&j, l.now()); err != nil {
			return err
		}
		_, err = tx.Exec(`UPDATE jobs SET state = ?, stage = ?, ended = ?, report_id = ?, error_code = ?,
			error_message = ?, error_details = ?, remote = ? WHERE id = ?`, j.State, j.Stage, nullTime(j.Ended),
			nullString(j.ReportID), j.ErrorCode, j.ErrorMessage, j.ErrorDetails, string(j.Remote), id)
		return err
	})
	if errors.Is(err, sql.ErrNoRows) {
		return record.Job{}, record.ErrNotFound
	}
	if err != nil {
		return record.Job{}, fmt.Errorf("update job %s: %w", id, err)
	}
	l.changed.Notify()
	return j, nil
}

// checkJob refuses a state that is none of record.JobStates, and sets or clears the end to match the state.
func checkJob(j *record.Job, now time.Time) error {
	if !slices.Contains(record.JobStates, j.State) {
		return fmt.Errorf("job %s: no such state %q", j.ID, j.State)
	}
	switch {
	case j.State == record.JobRunning:
		j.Ended = time.Time{}
	case j.Ended.IsZero():
		j.Ended = now
	}
	return nil
}

// Job returns the job id. A running job whose server is gone is marked interrupted first. ErrNotFound for a job
// not kept.
func (l *Library) Job(id string) (record.Job, error) {
	if !record.ValidJobID(id) || !l.ready() {
		return record.Job{}, record.ErrNotFound
	}
	j, err := scanJob(l.db.QueryRow(`SELECT `+jobColumns+` FROM jobs WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return record.Job{}, record.ErrNotFound
	}
	if err != nil {
		return record.Job{}, fmt.Errorf("read job %s: %w", id, err)
	}
	if j.State == record.JobRunning && !l.owner.alive(j.Owner) {
		l.sweepJobs()
		if swept, err := scanJob(l.db.QueryRow(`SELECT `+jobColumns+` FROM jobs WHERE id = ?`, id)); err == nil {
			j = swept
		}
		if j.State == record.JobRunning { // the sweep could not write: the job is interrupted all the same
			j.State = record.JobInterrupted
		}
	}
	return j, nil
}

// Jobs returns the jobs in state (every job when state is ""), the most recently started first, at most limit
// (every one when limit <= 0). Running jobs whose server is gone are marked interrupted first.
func (l *Library) Jobs(state record.JobState, limit int) ([]record.Job, error) {
	if !l.ready() {
		return nil, nil
	}
	if state == "" || state == record.JobRunning {
		l.sweepJobs()
	}
	if limit <= 0 {
		limit = -1
	}
	// A state is a term of its own, not "? = '' OR state = ?": SQLite reads the jobs of one state in jobs_state.
	if state == "" {
		return l.jobs(`SELECT `+jobColumns+` FROM jobs ORDER BY started DESC, rowid DESC LIMIT ?`, limit)
	}
	return l.jobs(`SELECT `+jobColumns+` FROM jobs WHERE state = ? ORDER BY started DESC, rowid DESC LIMIT ?`,
		state, limit)
}

// RunningElsewhere returns the jobs running in the other servers sharing the library (another owner's), the most
// recently started first, at most limit (every one when limit <= 0). Running jobs whose server is gone are marked
// interrupted first.
func (l *Library) RunningElsewhere(limit int) ([]record.Job, error) {
	if !l.ready() {
		return nil, nil
	}
	l.sweepJobs()
	if limit <= 0 {
		limit = -1
	}
	return l.jobs(`SELECT `+jobColumns+` FROM jobs WHERE state = 'running' AND owner != ?
		ORDER BY started DESC, rowid DESC LIMIT ?`, l.owner.id, limit)
}

// Resumable returns the interrupted jobs started since then that follow a remote run (Job.Remote), oldest first:
// those a server can follow on. Running jobs whose server is gone are marked interrupted first.
func (l *Library) Resumable(since time.Time) ([]record.Job, error) {
	if !l.ready() {
		return nil, nil
	}
	l.sweepJobs()
	return l.jobs(`SELECT `+jobColumns+` FROM jobs WHERE state = 'interrupted' AND remote != '' AND started >= ?
		ORDER BY started, rowid`, micros(since))
}

// Adopt makes the interrupted job id, which follows a remote run, this library's and running again, to follow that
// run on, and returns it as kept; false when it is not to be taken: another server took it first, it is not
// interrupted, or it follows no remote run.
func (l *Library) Adopt(id string) (record.Job, bool, error) {
	if !record.ValidJobID(id) || !l.ready() {
		return record.Job{}, false, nil
	}
	res, err := l.db.Exec(`UPDATE jobs SET state = 'running', owner = ?, ended = NULL, error_code = '',
		error_message = '', error_details = '' WHERE id = ? AND state = 'interrupted' AND remote != ''`, l.owner.id, id)
	if err != nil {
		return record.Job{}, false, fmt.Errorf("take job %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return record.Job{}, false, nil
	}
	l.changed.Notify()
	j, err := l.Job(id)
	return j, err == nil, err
}

// jobs runs a query of jobColumns.
func (l *Library) jobs(query string, args ...any) ([]record.Job, error) {
	rows, err := l.db.Query(query, args...)
	if err != nil {
		return nil, fmt.Errorf("list the jobs: %w", err)
	}
	defer rows.Close()
	var jobs []record.Job
	for rows.Next() {
		j, err := scanJob(rows)
		if err != nil {
			return nil, err
		}
		jobs = append(jobs, j)
	}
	return jobs, rows.Err()
}

// sweepJobs marks interrupted the running jobs of owners that are gone, and forgets those owners. A failure is
// logged.
func (l *Library) sweepJobs() {
	rows, err := l.db.Query(`SELECT DISTINCT owner FROM jobs WHERE state = 'running' AND owner != ?`, l.owner.id)
	if err != nil {
		l.log.Warn("cannot read the running jobs of the research library", "err", err)
		return
	}
	var gone []string
	for rows.Next() {
		var o string
		if rows.Scan(&o) == nil && !l.owner.alive(o) {
			gone = append(gone, o)
		}
	}
	rows.Close()
	for _, o := range gone {
		n, err := l.interrupt(o, interruptedGone)
		if err != nil {
			l.log.Warn("cannot mark the jobs of a server that is gone interrupted", "err", err)
			continue
		}
		l.owner.forget(o)
		if n > 0 {
			l.log.Warn("marked interrupted the research jobs of a server that ended before they finished", "jobs", n)
		}
	}
}

// interruptOwn marks interrupted the jobs of this library that still run: it is closing.
func (l *Library) interruptOwn() {
	n, err := l.interrupt(l.owner.id, interruptedClosed)
	if err != nil {
		l.log.Warn("cannot mark the research jobs still running interrupted", "err", err)
	} else if n > 0 {
		l.log.Info("marked interrupted the research jobs still running at the server's end", "jobs", n)
	}
}

// interrupt marks the running jobs of owner interrupted with message why.
func (l *Library) interrupt(owner, why string) (int64, error) {
	res, err := l.db.Exec(`UPDATE jobs SET state = 'interrupted', ended = ?, error_message = ?
		WHERE state = 'running' AND owner = ?`, micros(l.now()), why, owner)
	if err != nil {
		return 0, err
	}
	n, _ := res.RowsAffected()
	if n > 0 {
		l.changed.Notify()
	}
	return n, nil
}

// jobValues are j's values in the order of jobColumns.
func jobValues(j record.Job) []any {
	var args any
	if j.Args != nil {
		args = string(j.Args)
	}
	return []any{j.ID, j.Tool, j.Topic, args, string(j.State), j.Stage, micros(j.Started), nullTime(j.Ended),
		nullString(j.ReportID), j.ErrorCode, j.ErrorMessage, j.ErrorDetails, j.Owner, string(j.Remote)}
}

// scanJob reads a job of jobColumns.
func scanJob(row interface{ Scan(...any) error }) (record.Job, error) {
	var j record.Job
	var args, report sql.Null[string]
	var endedAt sql.NullInt64
	var started int64
	var remote string
	if err := row.Scan(&j.ID, &j.Tool, &j.Topic, &args, &j.State, &j.Stage, &started, &endedAt, &report,
		&j.ErrorCode, &j.ErrorMessage, &j.ErrorDetails, &j.Owner, &remote); err != nil {
		return record.Job{}, err
	}
	if args.Valid {
		j.Args = []byte(args.V)
	}
	if remote != "" {
		j.Remote = []byte(remote)
	}
	j.Started = fromMicros(started)
	if endedAt.Valid {
		j.Ended = fromMicros(endedAt.Int64)
	}
	j.ReportID = report.V
	return j, nil
}

func nullTime(t time.Time) sql.NullInt64 {
	if t.IsZero() {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: micros(t), Valid: true}
}

func nullString(s string) sql.NullString { return sql.NullString{String: s, Valid: s != ""} }
