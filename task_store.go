package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"
)

// TaskStore holds tasks for [Tasks], each as an opaque string under a
// session and an ID. Replicas that share a store answer for each other's
// tasks: any of them reads a task, cancels it or answers it, and the one
// running it learns of a cancel when it renews its lease.
//
// A store bounds what one session holds (TaskLimits), so that one
// conversation's flood of tasks costs that conversation only, and forgets
// a task when it expires. Implementations must be safe for concurrent use;
// of concurrent Replace calls with the same old value, exactly one wins.
type TaskStore interface {
	// Create keeps value under session and id until expires. It returns
	// an error wrapping [ErrTaskLimit] when session holds max.Count
	// unexpired tasks, or value would take it past max.Bytes (a bound of
	// zero or less is no bound), and changes nothing then.
	Create(ctx context.Context, session, id, value string, expires time.Time, max TaskLimits) error
	// Get returns what is kept under session and id, or an error wrapping
	// [ErrTaskNotFound].
	Get(ctx context.Context, session, id string) (string, error)
	// Replace keeps value in place of old under session and id until
	// expires, and reports true, if what is kept there is old; otherwise
	// it changes nothing and reports false. It returns an error wrapping
	// [ErrTaskLimit] when the session's tasks would take more than
	// maxBytes (zero or less: no bound), and [ErrTaskNotFound] when
	// nothing is kept there.
	Replace(ctx context.Context, session, id, old, value string, expires time.Time, maxBytes int64) (bool, error)
	// List returns what is kept for session's unexpired tasks, in no
	// order.
	List(ctx context.Context, session string) ([]string, error)
}

// TaskLimits bound the tasks of one session in a [TaskStore].
type TaskLimits struct {
	Count int   // unexpired tasks
	Bytes int64 // bytes of their values
}

// taskState is a task as the store keeps it (JSON).
type taskState struct {
	V         int        `json:"v"`
	ID        string     `json:"id"`
	Session   string     `json:"session"`
	Tool      string     `json:"tool"`
	CallID    string     `json:"callId"`
	Status    TaskStatus `json:"status"`
	Message   string     `json:"message,omitempty"`
	Created   time.Time  `json:"created"`
	Updated   time.Time  `json:"updated"`
	Expires   time.Time  `json:"expires"`
	Owner     string     `json:"owner,omitempty"` // the replica running it; "" while nothing runs
	Lease     time.Time  `json:"lease,omitzero"`  // until when Owner holds it
	Cancel    bool       `json:"cancel,omitempty"`
	Progress  *Progress  `json:"progress,omitempty"`
	Result    *taskRes   `json:"result,omitempty"`
	Cause     string     `json:"cause,omitempty"`
	Seq       int        `json:"seq,omitempty"` // input keys issued
	Collected bool       `json:"collected,omitempty"`

	Pending    *PendingApproval           `json:"pending,omitempty"`
	PendingKey string                     `json:"pendingKey,omitempty"`
	Input      map[string]json.RawMessage `json:"input,omitempty"`   // asked, not answered
	Answers    map[string]json.RawMessage `json:"answers,omitempty"` // answered, not taken by the tool yet
}

// taskRes is a call's result as the store keeps it.
type taskRes struct {
	Content    []Content       `json:"content"`
	Structured json.RawMessage `json:"structured,omitempty"`
	IsError    bool            `json:"isError,omitempty"`
	Status     uint8           `json:"status"` // a Status, whose text form does not decode
	Err        string          `json:"err,omitempty"`
	Truncated  int             `json:"truncated,omitempty"`
	FromRecord bool            `json:"fromRecord,omitempty"`
	// Pending is the pending approval of a call deferred to someone the
	// task does not relay for (the host's own approver, ReturnPending):
	// the host resumes the call with it.
	Pending *PendingApproval `json:"pending,omitempty"`
}

const taskStateVersion = 1

func (s *taskState) encode() (string, error) {
	s.V = taskStateVersion
	b, err := json.Marshal(s)
	return string(b), err
}

var errTaskCorrupt = errors.New("tool: the task store holds a task this version cannot read")

func decodeTaskState(raw string) (*taskState, error) {
	var s taskState
	if err := json.Unmarshal([]byte(raw), &s); err != nil || s.V != taskStateVersion {
		return nil, fmt.Errorf("%w (%v)", errTaskCorrupt, err)
	}
	return &s, nil
}

// finish ends the task with status; it reports true (the task changed).
func (s *taskState) finish(status TaskStatus, message, cause string) bool {
	s.Status, s.Message, s.Cause = status, message, cause
	if cause != "" && message == "" {
		s.Message = cause
	}
	s.Owner, s.Lease = "", time.Time{}
	s.Pending, s.PendingKey, s.Input, s.Answers = nil, "", nil, nil
	s.Updated = time.Now()
	return true
}

// setResult keeps res as the task's result; it reports true.
func (s *taskState) setResult(res *Result) bool {
	r := &taskRes{Content: res.Content, Structured: res.Structured, IsError: res.IsError, Status: uint8(res.Status),
		Truncated: res.Truncated, FromRecord: res.FromRecord, Pending: res.Pending}
	if res.Err != nil {
		r.Err = res.Err.Error()
	}
	s.Result = r
	return true
}

// result is the Result the store keeps.
func (r *taskRes) result(tool, callID string) *Result {
	res := &Result{Content: r.Content, Structured: r.Structured, IsError: r.IsError, Status: Status(r.Status),
		Truncated: r.Truncated, FromRecord: r.FromRecord, Pending: r.Pending, Tool: tool, CallID: callID, owned: true}
	if r.Err != "" {
		res.Err = &TaskError{Text: r.Err}
	}
	return res
}

func sortTasks(ts []*Task) {
	sort.SliceStable(ts, func(i, j int) bool {
		if !ts[i].Created.Equal(ts[j].Created) {
			return ts[i].Created.Before(ts[j].Created)
		}
		return ts[i].ID < ts[j].ID
	})
}
