package promises

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/toolbelt-go/tool"
)

// taskFrontend starts the call as a task on one replica and follows it to
// its end; a question deferred to the task's frontend (the host's own
// code here, TaskOptions.Answerer) is answered by the person through the
// other replica, which resumes the call there.
func taskFrontend() frontend {
	return frontend{name: "Tasks (started on one replica, answered on the other)", callIDs: true, resumes: true, call: taskCall}
}

func taskCall(t *testing.T, w *world, id, name, args string) outcome {
	ctx := context.Background()
	opts := &tool.TaskOptions{Store: w.store.tasks, Answerer: hostAnswerer}
	a, b := tool.NewTasks(w.a, opts), tool.NewTasks(w.b, opts)
	defer a.Close()
	defer b.Close()
	task, err := a.Start(ctx, struct{}{}, tool.Request{ID: id, Name: name, Args: json.RawMessage(args), Session: w.session})
	if err != nil {
		t.Fatal(err)
	}
	var sent *tool.TaskAnswer
	for range 4 {
		if task, err = a.Await(ctx, w.session, task.ID); err != nil {
			t.Fatal(err)
		}
		if task.Status != tool.TaskInputRequired || task.Pending == nil {
			break
		}
		if w.resend && sent != nil {
			// The last answer, sent again late, through the first replica:
			// refused, for it answers a question no longer asked.
			if err := a.Answer(ctx, struct{}{}, w.session, task.ID, *sent); !errors.Is(err, tool.ErrTaskState) {
				t.Errorf("%s: an answer sent again was taken (err %v)", promiseAllowed, err)
				continue
			}
		}
		d := w.person.answer(string(task.Pending.Request.Args)).decision()
		sent = &tool.TaskAnswer{Approval: &d, ApprovalKey: task.PendingKey, Answerer: hostAnswerer}
		if err := b.Answer(ctx, struct{}{}, w.session, task.ID, *sent); err != nil {
			t.Fatal(err)
		}
	}
	if task.Result == nil {
		return outcome{results: 0, text: string(task.Status) + ": " + task.Cause}
	}
	return one(task.Result)
}
