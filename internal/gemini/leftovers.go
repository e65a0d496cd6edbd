package gemini

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// A server killed outright (SIGKILL, a crash, a power cut of its terminal) cannot end its CLI runs. The CLI
// itself dies with it on Linux (the parent-death signal), but the MCP servers the CLI started (firecrawl-mcp and
// its node) live on in the CLI's process group. So each run in progress is recorded in a file of the state dir,
// and the next server that starts ends the groups of records whose server is gone, once it has proved the group
// is the one recorded. The folders of a follow-up's documents (documentsDir) are there too, named for their server:
// the next server removes those whose server is gone, as they hold a copy of a report the user researched.

// runRecord is what is kept of a CLI run in progress: its group, and which server started it. Start times are the
// kernel's (procStart), so that a reused process id is not taken for the recorded process.
type runRecord struct {
	Server      int    `json:"server"`       // the server's process id
	ServerStart uint64 `json:"server_start"` // and its start time
	Group       int    `json:"group"`        // the CLI's process id, which is its process group's
	Start       uint64 `json:"start"`        // the CLI's start time
	Dir         string `json:"dir"`          // the CLI's working folder, which its children inherit
}

// recordRun records the CLI pid, which leads its own group, in RunsDir and returns the func that forgets it once
// the group is gone. Nothing is recorded without a RunsDir, where a record could not prove its group
// (recordsRuns), or where start times cannot be read; a record that cannot be written is logged and the run goes on.
func (r *Runner) recordRun(pid int) (forget func()) {
	if r.cfg.RunsDir == "" || !recordsRuns {
		return func() {}
	}
	start := procStart(pid)
	if start == 0 {
		return func() {}
	}
	rec := runRecord{Server: os.Getpid(), ServerStart: procStart(os.Getpid()), Group: pid, Start: start, Dir: r.cfg.Dir}
	path := filepath.Join(r.cfg.RunsDir, strconv.Itoa(pid)+".json")
	data, _ := json.Marshal(rec) // plain fields
	err := os.MkdirAll(r.cfg.RunsDir, 0o700)
	if err == nil {
		err = os.WriteFile(path, data, 0o600)
	}
	if err != nil {
		r.cfg.Logger.Warn("cannot record the CLI run; a crash of this server could leave its MCP servers running",
			"err", err)
		return func() {}
	}
	return func() { _ = os.Remove(path) }
}

// SweepLeftovers ends the process groups that dir's records show a dead server left running, once it has proved
// each is the recorded one, and removes those records and the documents folders dead servers left. Records and
// folders of servers still running are left alone. It returns how many groups it ended.
func SweepLeftovers(dir string, logger *slog.Logger) int {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			logger.Warn("cannot read the records of CLI runs", "dir", dir, "err", err)
		}
		return 0
	}
	ended := 0
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), documentsPrefix) {
			removeLeftDocuments(filepath.Join(dir, e.Name()), logger)
			continue
		}
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		data, err := os.ReadFile(path)
		var rec runRecord
		if err != nil || json.Unmarshal(data, &rec) != nil || rec.Group <= 1 {
			_ = os.Remove(path) // unreadable: nothing can be proved with it
			continue
		}
		if rec.ServerStart != 0 && procStart(rec.Server) == rec.ServerStart {
			continue // its server still runs, and will end it
		}
		if members := groupMembers(rec); len(members) > 0 {
			killGroupID(rec.Group)
			ended++
			logger.Warn("ended the CLI processes a crashed server left running", "group", rec.Group,
				"processes", len(members))
		}
		_ = os.Remove(path)
	}
	return ended
}

// removeLeftDocuments removes the documents folder at path when the server named in its name (documentsDir) is
// gone. A folder whose server's start time was not known, or whose name is not one documentsDir writes, is left:
// nothing proves its server gone.
func removeLeftDocuments(path string, logger *slog.Logger) {
	var server int
	var start uint64
	name := strings.TrimPrefix(filepath.Base(path), documentsPrefix)
	if _, err := fmt.Sscanf(name, "%d-%d-", &server, &start); err != nil || start == 0 || procStart(server) == start {
		return
	}
	if err := os.RemoveAll(path); err != nil {
		logger.Warn("cannot remove the documents a crashed server left", "dir", path, "err", err)
		return
	}
	logger.Info("removed the documents a crashed server left", "dir", path)
}
