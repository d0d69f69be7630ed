package tool

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"time"
)

// taskRun is a task this process runs: its call's cancel, and what the
// heartbeat writes of it.
type taskRun struct {
	id, session string
	cancel      context.CancelCauseFunc
	done        chan struct{} // closed when the call has ended and its end is written
	wake        chan struct{} // an answer or a heartbeat: AskInput looks again

	store    TaskStore
	maxBytes int64
	poll     time.Duration

	mu   sync.Mutex
	last *Progress
}

type taskRunKey struct{}

// observe keeps the call's last progress for the next heartbeat.
func (r *taskRun) observe(e Event) {
	if e.Kind != EventProgress {
		return
	}
	p := e.Progress
	r.mu.Lock()
	r.last = &p
	r.mu.Unlock()
}

// progress returns the last progress, if any.
func (r *taskRun) progress() *Progress {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last
}

// AskInput asks the frontend following the task whose tool runs under ctx
// for input, and waits for all the answers: the task is input_required
// with questions ([Task].Input) until they are answered ([Tasks.Answer]),
// on whichever replica they reach. Questions and answers are opaque to
// the task: the frontend gives them their form (toolmcp.AskInput sends
// MCP input requests). It returns ErrNoTask outside a task, and ctx's
// cause when the task is cancelled or times out first.
//
// AskInput is for input the tool needs to do its work (a name, a choice
// among results). Approval is not asked this way: the pipeline asks the
// host's approver before the tool runs.
func AskInput(ctx context.Context, questions map[string]json.RawMessage) (map[string]json.RawMessage, error) {
	r, _ := ctx.Value(taskRunKey{}).(*taskRun)
	if r == nil {
		return nil, ErrNoTask
	}
	keys := map[string]string{} // the task's key -> the tool's
	_, err := updateTask(ctx, r.store, r.session, r.id, r.maxBytes, func(s *taskState) bool {
		clear(keys)
		if s.Input == nil {
			s.Input = map[string]json.RawMessage{}
		}
		for k, q := range questions {
			s.Seq++
			key := k + "-" + strconv.Itoa(s.Seq)
			keys[key] = k
			s.Input[key] = q
		}
		s.Status, s.Message, s.Updated = TaskInputRequired, "waiting for input", time.Now()
		return true
	})
	if err != nil {
		return nil, err
	}
	tick := time.NewTicker(r.poll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		case <-r.wake:
		case <-tick.C:
		}
		var got map[string]json.RawMessage
		_, err := updateTask(ctx, r.store, r.session, r.id, r.maxBytes, func(s *taskState) bool {
			got = nil
			for key := range keys {
				if _, ok := s.Answers[key]; !ok {
					return false
				}
			}
			got = make(map[string]json.RawMessage, len(keys))
			for key, k := range keys {
				got[k] = s.Answers[key]
				delete(s.Answers, key)
			}
			if len(s.Input) == 0 && s.Pending == nil {
				s.Status, s.Message = TaskWorking, ""
			}
			s.Updated = time.Now()
			return true
		})
		if err != nil {
			return nil, err
		}
		if got != nil {
			return got, nil
		}
	}
}
