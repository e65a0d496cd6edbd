// Package credential is the one rule for telling a credential by the name of the variable that holds it, and the
// Masker that keeps credentials out of what is shown or logged. The configuration uses it to learn which values of
// the .env file to keep out of output; both backends mask what they report with it.
package credential

import "regexp"

// namePattern matches variable names whose values are credentials: the pattern the Gemini CLI itself uses to keep
// variables from its MCP servers.
var namePattern = regexp.MustCompile(`(?i)TOKEN|SECRET|PASSWORD|PASSWD|KEY|AUTH|CREDENTIAL|CREDS|PRIVATE|CERT`)

// minLength is the shortest value taken as a credential by its variable's name alone: shorter ones are flags like
// "true", and masking them would mangle ordinary text.
const minLength = 8

// Named reports whether value, held by the variable name, is a credential by the name alone.
func Named(name, value string) bool {
	return len(value) >= minLength && namePattern.MatchString(name)
}
