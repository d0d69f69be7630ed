// Package promises checks Toolbelt's promises where its parts meet. Each
// promise is stated once, in promises_test.go, and checked over the product
// of how a call arrives (frontend_*_test.go: a direct call, a batch, a
// task started on one replica and answered on another, MCP
// over stdio and HTTP, stateful and stateless, at each protocol version,
// an ADK agent under ADK's runner, an Eino agent under Eino's Runner,
// each provider's loop on its official SDK), who answers its approval
// (approver_test.go: the policy alone, a terminal, the approval page, an
// MCP client, the MCP client with the page for other paths, ADK's tool
// confirmation, Eino's interrupt, the host's own deferring approver),
// where state lives (store_test.go: memory, Redis, for records,
// approvals, pending approvals and tasks) and where the commands run
// (sandbox_test.go: a stand-in shell that records what it is handed, and
// codetools' run_shell under bubblewrap and under Landlock, in a
// workspace whose files say what ran). A new frontend, approver, store or
// sandbox joins its table the day it exists, and every promise is
// checked on it.
//
// It is a module of its own, for tests only: it imports every adapter.
// Run it with
//
//	cd internal/promises && go test -race
//
// which ends by printing every combination it covered (a sandbox this
// machine lacks is skipped, naming what to install; with
// TOOLBELT_REQUIRE_SANDBOX set, as in CI, it fails).
package promises
