package toolredis_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/keyring"
	toolredis "github.com/toolbelt-go/tool/toolredis"
)

// This file is the deployment the fault and cluster tests run: replicas
// of one agent (each its own registry and Redis client, as separate
// processes have) that keep records, hold a tool's limit, defer approvals
// and spill long output, all in one Redis; and a ledger of what the tools
// did, across them.

// ledger counts the runs of the tools of one test, by what they were
// asked to do, and the most charges (the limited tool) that ran at once.
type ledger struct {
	mu                    sync.Mutex
	runs                  map[string]int
	inFlight, maxInFlight int
}

func newLedger() *ledger { return &ledger{runs: map[string]int{}} }

// enter counts a run of key, and one more running of the limited tool if
// limited.
func (l *ledger) enter(key string, limited bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.runs[key]++
	if limited {
		l.inFlight++
		l.maxInFlight = max(l.maxInFlight, l.inFlight)
	}
}

func (l *ledger) leave(limited bool) {
	if limited {
		l.mu.Lock()
		l.inFlight--
		l.mu.Unlock()
	}
}

func (l *ledger) count(key string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.runs[key]
}

// twice returns what ran more than once.
func (l *ledger) twice() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for k, n := range l.runs {
		if n > 1 {
			out = append(out, fmt.Sprintf("%s ran %d times", k, n))
		}
	}
	return out
}

// chargeLimit is how many charges may run at once, across the replicas.
const chargeLimit = 4

// agent is one replica.
type agent struct {
	reg *tool.Registry[struct{}]
}

type chargeArgs struct {
	Key  string `json:"key"`
	Size int    `json:"size,omitempty"`
}

// agentTimeout is the tools' time limit: a twin waits for the first call
// up to it and the grace.
const agentTimeout = 3 * time.Second

// newAgent is a replica on rdb. Its charge tool runs without asking, at
// most chargeLimit at once across the replicas, and returns size bytes;
// its transfer tool is asked about, and the approver defers every
// question (resumed with Request.Approval).
func newAgent(t testing.TB, rdb redis.UniversalClient, opts *toolredis.Options, l *ledger, recordFor time.Duration) *agent {
	t.Helper()
	keys, err := keyring.FromSecret(secret)
	require.NoError(t, err)
	reg := tool.NewRegistry[struct{}](&tool.RegistryOptions{
		Keyring: keys, DefaultTimeout: agentTimeout, Grace: time.Second, RecordFor: recordFor,
		Records: toolredis.NewRecordStore(rdb, opts),
		Limiter: toolredis.NewLimiter(rdb, opts),
		Spill:   toolredis.NewSpillStore(rdb, opts),
	})
	run := func(key string, size int) string {
		limited := !strings.HasPrefix(key, "transfer ")
		l.enter(key, limited)
		defer l.leave(limited)
		time.Sleep(20 * time.Millisecond)
		return key + " done " + strings.Repeat("x", size)
	}
	reg.MustAdd(
		tool.New(tool.Definition{Name: "charge", Description: "Charges a card.", Safety: tool.SafetyReadOnly,
			CallLimits: []tool.CallLimit{{Concurrent: chargeLimit, Wait: 10 * time.Second}}},
			func(_ context.Context, in chargeArgs) (string, error) { return run(in.Key, in.Size), nil }),
		tool.New(tool.Definition{Name: "transfer", Description: "Moves money.", Safety: tool.SafetyMutating},
			func(_ context.Context, in chargeArgs) (string, error) { return run("transfer "+in.Key, 0), nil }),
	)
	reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{
		Approver: tool.ApproverFunc(func(context.Context, tool.ApprovalRequest) (tool.Decision, error) {
			return tool.Decision{Kind: tool.DecisionDefer}, nil
		}),
		Store: toolredis.NewApprovalStore(rdb, opts),
	}))
	return &agent{reg: reg}
}

// charge calls the charge tool of session with id; its key is both.
func (a *agent) charge(session, id string, size int) *tool.Result {
	args := fmt.Sprintf(`{"key":%q,"size":%d}`, session+"/"+id, size)
	return a.reg.Call(context.Background(), struct{}{}, tool.Request{ID: id, Name: "charge", Args: []byte(args), Session: session})
}

// transfer calls the transfer tool of session with id, for key, resuming
// pending if it is not nil.
func (a *agent) transfer(session, id, key string, pending *tool.PendingApproval) *tool.Result {
	req := tool.Request{ID: id, Name: "transfer", Args: []byte(fmt.Sprintf(`{"key":%q}`, key)), Session: session}
	if pending != nil {
		req.Approval = &tool.ApprovalAnswer{State: pending.State, Decision: tool.Decision{Kind: tool.DecisionAllowOnce}}
	}
	return a.reg.Call(context.Background(), struct{}{}, req)
}

// outcome names what a call's result says happened: that the tool ran
// ("ran"), or was answered from its record ("record"), or which case of
// refusal it is; "" when it says none the tests know, which is a failure.
func outcome(res *tool.Result) string {
	switch {
	case res.Status == tool.StatusOK && res.FromRecord:
		return "record"
	case res.Status == tool.StatusOK:
		return "ran"
	case res.Status == tool.StatusAwaitingApproval:
		return "awaiting approval"
	case errors.Is(res.Err, tool.ErrCallInFlight):
		return "in progress elsewhere"
	case errors.Is(res.Err, tool.ErrCallUnrecorded):
		return "ran, result not kept"
	case errors.Is(res.Err, tool.ErrStoreLostData):
		return "store lost data"
	case errors.Is(res.Err, tool.ErrRecordStoreFull):
		return "session full"
	case errors.Is(res.Err, tool.ErrRecordStore):
		return "not run, retry"
	case errors.Is(res.Err, tool.ErrLimiterFailed):
		return "limits unchecked, retry"
	case res.Status == tool.StatusLimited:
		return "limited"
	case errors.Is(res.Err, tool.ErrApprovalState) && strings.Contains(res.Err.Error(), "already used"):
		return "approval used"
	case errors.Is(res.Err, tool.ErrApprovalState):
		return "approval unchecked"
	}
	return ""
}

// ran reports whether an outcome is the tool having run in this call.
func ran(o string) bool { return o == "ran" }

// checkRefusal fails t for a result no known case explains, or whose
// model text is empty or carries the store's own words.
func checkRefusal(t testing.TB, what string, res *tool.Result) string {
	t.Helper()
	o := outcome(res)
	if o == "" {
		t.Errorf("%s: a refusal that says no known case: %v %v\n%s", what, res.Status, res.Err, res.Text())
	}
	if text := res.Text(); text == "" || strings.Contains(strings.ToLower(text), "redis") {
		t.Errorf("%s: model text %q: empty, or it names the store", what, text)
	}
	return o
}

// tally counts outcomes, for the test's log.
type tally struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *tally) add(o string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[o]++
}

func (c *tally) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return fmt.Sprint(c.n)
}
