package toolredis_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/keyring"
	toolredis "github.com/toolbelt-go/tool/toolredis"
	"github.com/toolbelt-go/tool/toolredis/redistest"
)

func TestTaskStore(t *testing.T) {
	srv := redistest.New(t)
	s := toolredis.NewTaskStore(client(t, srv), &toolredis.Options{Namespace: namespace()})
	ctx := context.Background()
	later := time.Now().Add(time.Hour)

	require.NoError(t, s.Create(ctx, "s", "a", "one", later, tool.TaskLimits{Count: 2, Bytes: 10}))
	assert.Error(t, s.Create(ctx, "s", "a", "one", later, tool.TaskLimits{}), "an ID is created once")
	got, err := s.Get(ctx, "s", "a")
	require.NoError(t, err)
	assert.Equal(t, "one", got)
	_, err = s.Get(ctx, "other", "a")
	assert.ErrorIs(t, err, tool.ErrTaskNotFound, "sessions are apart")

	ok, err := s.Replace(ctx, "s", "a", "stale", "two", later, 0)
	require.NoError(t, err)
	assert.False(t, ok, "only what was read is replaced")
	ok, err = s.Replace(ctx, "s", "a", "one", "two", later, 0)
	require.NoError(t, err)
	assert.True(t, ok)
	_, err = s.Replace(ctx, "s", "a", "two", "far too many bytes", later, 10)
	assert.ErrorIs(t, err, tool.ErrTaskLimit)
	_, err = s.Replace(ctx, "s", "nope", "", "x", later, 0)
	assert.ErrorIs(t, err, tool.ErrTaskNotFound)

	assert.ErrorIs(t, s.Create(ctx, "s", "b", "123456789", later, tool.TaskLimits{Count: 2, Bytes: 10}), tool.ErrTaskLimit, "bytes")
	require.NoError(t, s.Create(ctx, "s", "b", "3", later, tool.TaskLimits{Count: 2, Bytes: 10}))
	assert.ErrorIs(t, s.Create(ctx, "s", "c", "4", later, tool.TaskLimits{Count: 2}), tool.ErrTaskLimit, "count")
	require.NoError(t, s.Create(ctx, "quiet", "c", "4", later, tool.TaskLimits{Count: 2}), "another session is not refused")

	list, err := s.List(ctx, "s")
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"two", "3"}, list)

	require.NoError(t, s.Create(ctx, "e", "x", "soon", time.Now().Add(50*time.Millisecond), tool.TaskLimits{Count: 1}))
	time.Sleep(100 * time.Millisecond)
	_, err = s.Get(ctx, "e", "x")
	assert.ErrorIs(t, err, tool.ErrTaskNotFound, "expired")
	require.NoError(t, s.Create(ctx, "e", "y", "next", later, tool.TaskLimits{Count: 1}), "an expired task frees its place")
}

// The replica process: TestTaskReplicaProcess runs as replica A when the
// parent test starts it with taskReplicaEnv set, and otherwise does
// nothing.
const taskReplicaEnv = "TOOLREDIS_TASK_REPLICA"

const taskLease = time.Second

// taskReplica is one replica's registry and tasks on the shared Redis.
func taskReplica(t testing.TB, c redis.UniversalClient, ns, name string) (*tool.Tasks[struct{}], *atomic.Int32) {
	keys, err := keyring.FromSecret(secret)
	require.NoError(t, err)
	runs := new(atomic.Int32)
	reg := tool.NewRegistry[struct{}](&tool.RegistryOptions{Keyring: keys})
	reg.MustAdd(
		tool.New(tool.Definition{Name: "wait", Description: "Runs until cancelled.", Safety: tool.SafetyReadOnly, Task: tool.TaskMust},
			func(ctx context.Context, _ struct{}) (string, error) {
				runs.Add(1)
				<-ctx.Done()
				return "", context.Cause(ctx)
			}),
		tool.New(tool.Definition{Name: "deploy", Description: "Deploys.", Safety: tool.SafetyMutating, Task: tool.TaskMay},
			func(context.Context, struct{}) (string, error) { runs.Add(1); return "deployed by " + name, nil }),
	)
	reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{
		Approver: tool.ApproverFunc(func(context.Context, tool.ApprovalRequest) (tool.Decision, error) {
			return tool.Decision{Kind: tool.DecisionDefer, Answerer: "frontend"}, nil
		}),
		Store: toolredis.NewApprovalStore(c, &toolredis.Options{Namespace: ns}),
	}))
	ts := tool.NewTasks(reg, &tool.TaskOptions{Store: toolredis.NewTaskStore(c, &toolredis.Options{Namespace: ns}),
		Answerer: "frontend", Lease: taskLease, PollInterval: 20 * time.Millisecond, Replica: name})
	return ts, runs
}

func TestTaskReplicaProcess(t *testing.T) {
	addr := os.Getenv(taskReplicaEnv)
	if addr == "" {
		t.Skip("runs as a replica of TestTaskReplicas")
	}
	c := redis.NewClient(&redis.Options{Addr: addr})
	a, _ := taskReplica(t, c, os.Getenv(taskReplicaEnv+"_NS"), "replica-a")
	ctx := context.Background()
	running, err := a.Start(ctx, struct{}{}, tool.Request{Name: "wait", Session: "s"})
	require.NoError(t, err)
	pending, err := a.Start(ctx, struct{}{}, tool.Request{Name: "deploy", Session: "s"})
	require.NoError(t, err)
	got, err := a.Await(ctx, "s", pending.ID)
	require.NoError(t, err)
	require.Equal(t, tool.TaskInputRequired, got.Status)
	fmt.Printf("running %s\npending %s\n", running.ID, pending.ID)
	select {} // until killed
}

func TestTaskReplicas(t *testing.T) {
	srv := redistest.New(t)
	ns := namespace()
	b, bRuns := taskReplica(t, client(t, srv), ns, "replica-b")
	defer b.Close()
	ctx := context.Background()

	t.Run("started on A, polled and cancelled on B", func(t *testing.T) {
		a, aRuns := taskReplica(t, client(t, srv), ns, "replica-a")
		defer a.Close()
		task, err := a.Start(ctx, struct{}{}, tool.Request{Name: "wait", Session: "s"})
		require.NoError(t, err)
		got, err := b.Get(ctx, "s", task.ID)
		require.NoError(t, err, "readable on B as soon as A's Start returns")
		assert.Equal(t, tool.TaskWorking, got.Status)
		require.Eventually(t, func() bool { return aRuns.Load() == 1 }, 10*time.Second, 5*time.Millisecond)
		require.NoError(t, b.Cancel(ctx, "s", task.ID))
		wctx, cancel := context.WithTimeout(ctx, 20*taskLease)
		defer cancel()
		got, err = b.Await(wctx, "s", task.ID)
		require.NoError(t, err)
		assert.Equal(t, tool.TaskCancelled, got.Status, "B's cancel reached the tool on A")
		assert.Zero(t, bRuns.Load())
	})

	t.Run("A killed: its running task fails within the lease; its pending one resumes on B", func(t *testing.T) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestTaskReplicaProcess$", "-test.v")
		cmd.Env = append(os.Environ(), taskReplicaEnv+"="+srv.Addr, taskReplicaEnv+"_NS="+ns)
		out, err := cmd.StdoutPipe()
		require.NoError(t, err)
		cmd.Stderr = os.Stderr
		require.NoError(t, cmd.Start())
		defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
		ids := map[string]string{}
		lines := bufio.NewScanner(out)
		for len(ids) < 2 && lines.Scan() {
			if f := strings.Fields(lines.Text()); len(f) == 2 && (f[0] == "running" || f[0] == "pending") {
				ids[f[0]] = f[1]
			}
		}
		require.Len(t, ids, 2, "replica A started its tasks")
		got, err := b.Get(ctx, "s", ids["running"])
		require.NoError(t, err)
		require.Equal(t, tool.TaskWorking, got.Status)

		require.NoError(t, cmd.Process.Kill()) // SIGKILL: no goodbye
		killed := time.Now()
		require.Eventually(t, func() bool {
			got, err = b.Get(ctx, "s", ids["running"])
			return err == nil && got.Status == tool.TaskFailed
		}, 20*taskLease, 20*time.Millisecond, "the killed replica's task fails")
		assert.Less(t, time.Since(killed), 10*taskLease, "a bound that catches a hang, not a timing")
		assert.Contains(t, got.Cause, "replica-a has not renewed")
		assert.Zero(t, bRuns.Load(), "B never runs it again")

		pending, err := b.Get(ctx, "s", ids["pending"])
		require.NoError(t, err)
		require.Equal(t, tool.TaskInputRequired, pending.Status, "nothing ran for it: A's death does not touch it")
		allow := tool.Decision{Kind: tool.DecisionAllowOnce}
		answer := tool.TaskAnswer{Approval: &allow, ApprovalKey: pending.PendingKey, Answerer: "frontend"}
		require.NoError(t, b.Answer(ctx, struct{}{}, "s", ids["pending"], answer))
		wctx, cancel := context.WithTimeout(ctx, 20*taskLease)
		defer cancel()
		done, err := b.Await(wctx, "s", ids["pending"])
		require.NoError(t, err)
		assert.Equal(t, tool.TaskCompleted, done.Status)
		assert.Equal(t, "deployed by replica-b", done.Result.Text(), "the deferred approval resumed on the other replica")
		assert.Equal(t, int32(1), bRuns.Load())
		err = b.Answer(ctx, struct{}{}, "s", ids["pending"], answer)
		assert.ErrorIs(t, err, tool.ErrTaskState, "answered once, run once")
		assert.Equal(t, int32(1), bRuns.Load())
	})

	t.Run("results and questions survive the store as JSON", func(t *testing.T) {
		a, _ := taskReplica(t, client(t, srv), ns, "replica-a")
		defer a.Close()
		task, err := a.Start(ctx, struct{}{}, tool.Request{Name: "deploy", Session: "json"})
		require.NoError(t, err)
		wctx, cancel := context.WithTimeout(ctx, 20*taskLease)
		defer cancel()
		got, err := b.Await(wctx, "json", task.ID)
		require.NoError(t, err)
		require.NotNil(t, got.Pending)
		b, _ := json.Marshal(got.Pending.Request.Args)
		assert.Equal(t, `{}`, string(b))
	})
}
