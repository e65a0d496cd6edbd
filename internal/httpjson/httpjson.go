// Package httpjson writes JSON answers over HTTP, as the REST API and the HTTP side's refusals and health check
// answer.
package httpjson

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
)

// Write answers w with status and v as indented JSON; a v that cannot be encoded answers 500 and {"success":false}.
func Write(w http.ResponseWriter, status int, v any) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		status, b = http.StatusInternalServerError, *bytes.NewBufferString(`{"success":false}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.Copy(w, &b)
}
