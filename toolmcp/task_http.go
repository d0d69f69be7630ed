package toolmcp

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The standard headers of a request over streamable HTTP from protocol
// 2026-07-28 on (SEP-2243): its method, and the name it acts on. SEP-2663
// has a client set Mcp-Name to params.taskId on tasks/get, tasks/update
// and tasks/cancel, so that a load balancer can send a task's requests to
// the replica that holds it.
const (
	methodHeader = "Mcp-Method"
	nameHeader   = "Mcp-Name"
)

// methodListen is the request a client of 2026-07-28 opens its stream of
// notifications with (SEP-2575); SEP-2663 adds taskIds to what it may ask.
const methodListen = "subscriptions/listen"

// isTaskMethod reports whether method is one of the extension's methods
// that name a task.
func isTaskMethod(method string) bool {
	return method == methodTasksGet || method == methodTasksUpdate || method == methodTasksCancel
}

// taskNameMismatch says why header does not name the task id, or "" when
// it does. Missing and different are refused alike: the transport of
// 2026-07-28 has a server refuse a request whose standard header is
// missing or disagrees with its body (400, HeaderMismatch -32020).
func taskNameMismatch(header http.Header, method, id string) string {
	name := header.Get(nameHeader)
	switch {
	case name == "":
		return "missing required Mcp-Name header for method " + method + ": it must be params.taskId (SEP-2663)"
	case !headerNames(name, id):
		return "header mismatch: the Mcp-Name header is not params.taskId"
	}
	return ""
}

// headerValue is s as a standard header carries it (SEP-2243): as it is
// when it is printable ASCII without surrounding spaces, base64 in
// "=?base64?...?=" otherwise.
func headerValue(s string) string {
	plain := strings.TrimSpace(s) == s
	for i := 0; plain && i < len(s); i++ {
		plain = s[i] >= 0x20 && s[i] <= 0x7e
	}
	if plain {
		return s
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?="
}

// headerNames reports whether the header value h carries s, as it is or
// in base64.
func headerNames(h, s string) bool {
	if h == s {
		return true
	}
	enc, ok := strings.CutPrefix(h, "=?base64?")
	if !ok {
		return false
	}
	if enc, ok = strings.CutSuffix(enc, "?="); !ok {
		return false
	}
	b, err := base64.StdEncoding.DecodeString(enc)
	return err == nil && string(b) == s
}

// checkTaskRequest refuses what the tasks extension has a server refuse
// in a request of protocol 2026-07-28 or later, where the SDK cannot:
//
//   - a tasks/get, tasks/update or tasks/cancel whose Mcp-Name header is
//     missing or is not its params.taskId, as the SDK refuses such a
//     tools/call (it checks the header of tools/call, prompts/get and
//     resources/read only): 400 Bad Request, with HeaderMismatch;
//   - a subscriptions/listen that asks for task status notifications
//     (notifications.taskIds) from a client that did not declare the
//     extension: -32021, naming it. (The SDK drops taskIds as it decodes
//     the request; a client that declared the extension is acknowledged
//     without them, as toolmcp sends no notifications/tasks: see
//     docs/mcp.md.)
//
// It reports whether the request may go on; when it may not, it has
// answered it. The body is read only for a request whose Mcp-Method is one
// of those methods (the SDK refuses one whose Mcp-Method is not its
// method). The task methods' middleware checks Mcp-Name again on the
// SDK's own reading of the body (taskMethod), so a body this reading
// takes otherwise (a key written twice) gains nothing.
func (h *httpHandler) checkTaskRequest(w http.ResponseWriter, r *http.Request) bool {
	method := r.Header.Get(methodHeader)
	if r.Method != http.MethodPost || r.Header.Get(protocolVersionHeader) < protocolMultiRoundTrip || !isTaskMethod(method) && method != methodListen {
		return true
	}
	if !h.readBody(w, r) {
		return false
	}
	body, _ := io.ReadAll(r.Body) // in memory: readBody read it
	r.Body = io.NopCloser(bytes.NewReader(body))
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			TaskID string `json:"taskId"`
			Meta   struct {
				Capabilities *sdk.ClientCapabilities `json:"io.modelcontextprotocol/clientCapabilities"`
			} `json:"_meta"`
			Notifications struct {
				TaskIDs []json.RawMessage `json:"taskIds"`
			} `json:"notifications"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &msg) != nil || msg.Method != method {
		return true // not one request of that method: the SDK answers it
	}
	status, rpcErr := http.StatusOK, (*jsonrpc.Error)(nil)
	switch {
	case isTaskMethod(method):
		if why := taskNameMismatch(r.Header, method, msg.Params.TaskID); why != "" {
			status, rpcErr = http.StatusBadRequest, &jsonrpc.Error{Code: sdk.CodeHeaderMismatch, Message: why}
		}
	case len(msg.Params.Notifications.TaskIDs) > 0 && !declaresTasks(msg.Params.Meta.Capabilities):
		rpcErr = errTasksRequired("Asking for task status notifications (notifications.taskIds)").(*jsonrpc.Error)
	}
	if rpcErr == nil {
		return true
	}
	id := msg.ID
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	resp, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *jsonrpc.Error  `json:"error"`
	}{"2.0", id, rpcErr})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(resp)
	return false
}

// withTaskName returns req with the Mcp-Name header a tasks/* request of
// 2026-07-28 must carry (its params.taskId), for the client side: the
// SDK's client sets Mcp-Method on every request but Mcp-Name only on
// tools/call, prompts/get and resources/read, and a server that routes or
// checks tasks by it refuses the request without it (as toolmcp's does).
// Other requests are returned as they are.
func withTaskName(req *http.Request) *http.Request {
	if req.Header.Get(nameHeader) != "" || !isTaskMethod(req.Header.Get(methodHeader)) || req.GetBody == nil {
		return req
	}
	body, err := req.GetBody()
	if err != nil {
		return req
	}
	defer body.Close()
	var msg struct {
		Params struct {
			TaskID string `json:"taskId"`
		} `json:"params"`
	}
	if json.NewDecoder(body).Decode(&msg) != nil || msg.Params.TaskID == "" {
		return req
	}
	named := req.Clone(req.Context())
	named.Header.Set(nameHeader, headerValue(msg.Params.TaskID))
	return named
}
