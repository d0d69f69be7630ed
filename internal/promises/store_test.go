package promises

import (
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/keyring"
	"github.com/toolbelt-go/tool/toolredis"
	"github.com/toolbelt-go/tool/toolredis/redistest"
)

// storeSet is where the replicas of a world keep what they share: the
// keyring that signs deferred approvals, the records of calls, "allow
// always" and the one-time claims of resumed approvals, the approvals
// that wait on the page, and the tasks.
type storeSet struct {
	keys      *keyring.Keyring
	records   tool.RecordStore
	approvals tool.ApprovalStore
	pending   tool.PendingApprovalStore
	tasks     tool.TaskStore
}

// storeKind is one place state can live.
type storeKind struct {
	name string
	open func(t *testing.T) *storeSet
}

func stores() []storeKind {
	return []storeKind{
		{name: "memory", open: func(t *testing.T) *storeSet {
			return &storeSet{keys: sharedKeys(t), records: tool.NewMemoryRecordStore(0),
				approvals: tool.NewMemoryApprovalStore(0), pending: tool.NewMemoryPendingApprovalStore(0), tasks: tool.NewMemoryTaskStore()}
		}},
		{name: "redis", open: func(t *testing.T) *storeSet {
			srv := redistest.New(t)
			rdb := redis.NewClient(&redis.Options{Addr: srv.Addr})
			t.Cleanup(func() { _ = rdb.Close() })
			return &storeSet{keys: sharedKeys(t), records: toolredis.NewRecordStore(rdb, nil),
				approvals: toolredis.NewApprovalStore(rdb, nil), pending: toolredis.NewPendingApprovalStore(rdb, nil),
				tasks: toolredis.NewTaskStore(rdb, nil)}
		}},
	}
}

func sharedKeys(t *testing.T) *keyring.Keyring {
	k, err := keyring.FromSecret([]byte("the replicas' shared secret, 32 bytes or more"))
	if err != nil {
		t.Fatal(err)
	}
	return k
}
