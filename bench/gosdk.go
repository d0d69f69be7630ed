package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// newGoSDK starts an official-SDK server with the search tool as a typed
// handler (mcp.AddTool: the arguments validated against the input schema
// with defaults applied, decoded, the result encoded and validated against
// the output schema inferred from searchOut), and connects a client to it
// over the SDK's in-memory transport.
//
// The SDK infers schemas with google/jsonschema-go, which reads a jsonschema
// tag as a description and refuses one that starts "minLength=1,…", so
// AddTool would panic; the tool is given Toolbelt's input schema instead:
// both validate the same constraints.
//
// dispatch is the server's own tools/call method handler, taken from its
// receiving-middleware chain: the step every transport reaches after
// decoding a request. Its JSON decoder (segmentio/encoding, through the
// SDK's internal/json) allocates about 100 KB per call here, which is most
// of this path's cost.
func newGoSDK() (session *mcp.ServerSession, dispatch mcp.MethodHandler, cs *mcp.ClientSession, err error) {
	s := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: toolName, Description: toolDesc, InputSchema: inputSchema()},
		func(ctx context.Context, _ *mcp.CallToolRequest, in searchArgs) (*mcp.CallToolResult, searchOut, error) {
			out, err := search(ctx, in)
			return nil, out, err
		})
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		dispatch = next
		return next
	})
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	session, err = s.Connect(ctx, st, nil)
	if err != nil {
		return nil, nil, nil, err
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1.0.0"}, nil)
	cs, err = c.Connect(ctx, ct, nil)
	if err != nil {
		session.Close()
		return nil, nil, nil, err
	}
	return session, dispatch, cs, nil
}

// openGoSDKHandler calls the server's tools/call handler directly, with the
// arguments as the SDK's JSON-RPC layer hands them over: no transport, no
// encoding of the response.
func openGoSDKHandler() (func([]byte) call, func(), error) {
	ss, dispatch, cs, err := newGoSDK()
	if err != nil {
		return nil, nil, err
	}
	prepare := func(args []byte) call {
		return func(ctx context.Context, text *string) (bool, error) {
			req := &mcp.CallToolRequest{Session: ss, Params: &mcp.CallToolParamsRaw{Name: toolName, Arguments: args}}
			r, err := dispatch(ctx, "tools/call", req)
			if err != nil {
				return false, err
			}
			res, ok := r.(*mcp.CallToolResult)
			if !ok {
				return false, fmt.Errorf("go-sdk: tools/call result is a %T", r)
			}
			return goSDKOutcome(res, text)
		}
	}
	return prepare, func() { cs.Close(); ss.Close() }, nil
}

// openGoSDKClient calls the tool with ClientSession.CallTool over the
// in-memory transport: the client encodes the request, the server decodes
// it, runs the handler above and encodes the response, and the client
// decodes it.
func openGoSDKClient() (func([]byte) call, func(), error) {
	ss, _, cs, err := newGoSDK()
	if err != nil {
		return nil, nil, err
	}
	prepare := func(args []byte) call {
		return func(ctx context.Context, text *string) (bool, error) {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: toolName, Arguments: json.RawMessage(args)})
			if err != nil {
				return false, err
			}
			return goSDKOutcome(res, text)
		}
	}
	return prepare, func() { cs.Close(); ss.Close() }, nil
}

func goSDKOutcome(res *mcp.CallToolResult, text *string) (bool, error) {
	if text != nil {
		var parts []string
		for _, c := range res.Content {
			tc, ok := c.(*mcp.TextContent)
			if !ok {
				return false, errors.New("go-sdk: a result block is not text")
			}
			parts = append(parts, tc.Text)
		}
		*text = strings.Join(parts, "\n")
	}
	return res.IsError, nil
}
