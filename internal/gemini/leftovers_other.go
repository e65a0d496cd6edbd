//go:build !linux

package gemini

// Elsewhere than on Linux no run is recorded: procStart cannot read a start time, so a record could not prove its
// group. (On Windows the processes of a run are ended as a tree; macOS has no parent-death signal either.)

func procStart(int) uint64         { return 0 }
func groupMembers(runRecord) []int { return nil }
func killGroupID(int)              {}
