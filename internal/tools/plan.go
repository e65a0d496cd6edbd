package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research"
)

// planAnswerWait bounds how long the user has to answer the research plan of Google's Deep Research agent: a
// client that never answers must not hold the research.
const planAnswerWait = 5 * time.Minute

// planQuestion is what the user is asked about a plan: approve it (the default), and what to change about it.
var planQuestion = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"approve": map[string]any{"type": "boolean", "title": "Run this plan",
			"description": "Run the research as planned (3 to 20 minutes, about $2-5), or not at all.", "default": true},
		"focus": map[string]any{"type": "string", "title": "Change the focus (optional)", "maxLength": 2000,
			"description": "What the research should do differently from the plan, in your words."},
	},
	"required": []string{"approve"},
}

// planConfirmer is how the call made with ctx asks its user about the research plan of Google's agent (MCP
// elicitation, form mode); nil when it cannot: a client that declared no elicitation, or a call made as an MCP
// task, which runs after its call has answered.
func planConfirmer(ctx context.Context) func(context.Context, string) (research.PlanAnswer, error) {
	srv := server.ServerFromContext(ctx)
	if srv == nil || taskOf(ctx) != nil || !canElicit(ctx) {
		return nil
	}
	return func(ctx context.Context, plan string) (research.PlanAnswer, error) {
		ctx, cancel := context.WithTimeout(ctx, planAnswerWait)
		defer cancel()
		res, err := srv.RequestElicitation(ctx, mcp.ElicitationRequest{Params: mcp.ElicitationParams{
			Message: "Google's Deep Research agent proposes this research plan. Running it takes 3 to 20 minutes " +
				"and costs about $2-5; nothing more is spent unless you approve it.\n\n" + plan,
			RequestedSchema: planQuestion,
		}})
		if err != nil {
			return research.PlanAnswer{}, err
		}
		return planAnswerOf(res)
	}
}

// planAnswerOf reads the user's answer: approved only when accepted with approve set.
func planAnswerOf(res *mcp.ElicitationResult) (research.PlanAnswer, error) {
	switch res.Action {
	case mcp.ElicitationResponseActionDecline, mcp.ElicitationResponseActionCancel:
		return research.PlanAnswer{}, nil
	case mcp.ElicitationResponseActionAccept:
	default:
		return research.PlanAnswer{}, fmt.Errorf("the client answered the plan with %q", res.Action)
	}
	content, _ := res.Content.(map[string]any)
	approved, ok := content["approve"].(bool)
	if !ok {
		return research.PlanAnswer{}, errors.New("the client accepted the plan without saying whether to run it")
	}
	focus, _ := content["focus"].(string)
	return research.PlanAnswer{Approved: approved, Focus: strings.TrimSpace(focus)}, nil
}

// canElicit reports whether the call's client declared MCP elicitation in form mode (an empty elicitation
// capability is form mode, as clients before 2025-11-25 declare it).
func canElicit(ctx context.Context) bool {
	session, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo)
	if !ok {
		return false
	}
	e := session.GetClientCapabilities().Elicitation
	return e != nil && (e.Form != nil || e.URL == nil)
}
