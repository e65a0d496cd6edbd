package runners

import "context"

// CLIVersion runs the Gemini CLI's version check (`gemini --version`), which doctor shows and which proves the CLI
// starts; CLIErr when no CLI was found.
func (s *Set) CLIVersion(ctx context.Context) (string, error) {
	if s.warm == nil {
		return "", s.CLIErr
	}
	return s.warm.Version(ctx)
}
