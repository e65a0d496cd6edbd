package tools

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tools/parts"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tools/schemas"
)

// FetchChunkArgs are the arguments of fetch_chunk.
type FetchChunkArgs struct {
	ID    string `json:"id"`
	Index int    `json:"index"`
}

func fetchChunkTool() mcp.Tool {
	return mcp.NewTool("fetch_chunk",
		mcp.WithTitleAnnotation("Fetch the rest of a long report"),
		mcp.WithDescription("Returns one part of a report that was too long to send at once. The report's first part says "+
			"its id and how many parts there are; parts are kept for "+parts.Kept+"."),
		mcp.WithString("id", mcp.Required(), mcp.Pattern(`^[0-9a-f]{16}$`), mcp.Description("The report id given with its first part.")),
		mcp.WithInteger("index", mcp.Required(), mcp.Min(1), mcp.Description("The part to fetch, from 2 to the number of parts.")),
		mcp.WithRawOutputSchema(json.RawMessage(schemas.Chunk)),
		readOnlyAnnotations(false),
	)
}

// Chunk is a part of a long report, fetch_chunk's answer.
type Chunk struct {
	Success bool   `json:"success"`
	ID      string `json:"id"`
	Index   int    `json:"index"`
	Count   int    `json:"count"`
	Text    string `json:"text"`
}

// FetchChunk returns part a.Index of the report a.ID.
func (t *Tools) FetchChunk(ctx context.Context, a FetchChunkArgs) (*Chunk, error) {
	return record(ctx, t, "fetch_chunk", a.ID, func(context.Context) (*Chunk, error) {
		if err := t.checkArguments("fetch_chunk", a); err != nil {
			return nil, err
		}
		text, count, err := t.chunks.Get(a.ID, a.Index)
		if err != nil {
			e := &Error{Code: backend.CodeInvalidArgument, Message: err.Error(),
				Details: "Ask for a part from 1 to the count the report gave."}
			if errors.Is(err, parts.ErrNotFound) { // expired, dropped, or never given: only a new search has the parts
				e.Code, e.Details = backend.CodeChunkNotFound, "Run the search again to get a new id (a recent report may come "+
					"back from the cache), and fetch the parts soon after."
			}
			return nil, e
		}
		return &Chunk{Success: true, ID: a.ID, Index: a.Index, Count: count, Text: text}, nil
	})
}

// CallToolResult is the part as structured content.
func (c *Chunk) CallToolResult() *mcp.CallToolResult { return structured(*c) }

func (c *Chunk) firecrawl() string { return "" }

func (c *Chunk) size() int { return len(c.Text) }
