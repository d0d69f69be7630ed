// Package promises checks Toolbelt's promises where its parts meet. Each
// promise is stated once, in promises_test.go, and checked over the product
// of how a call arrives (frontend_*_test.go: a direct call, a batch, a
// task started on one replica and answered on another, MCP
// over stdio and HTTP, stateful and stateless, at each protocol version,
// an ADK agent under ADK's runner, an Eino agent under Eino's Runner,
// each provider's loop on its official SDK), who answers its approval
// (approver_test.go: the policy alone, a terminal, the approval page, an
// MCP client, the MCP client with the page for other paths, ADK's tool
// confirmation, Eino's interrupt, the host's own deferring approver) and
// where state lives (store_test.go: memory, Redis, for records,
// approvals, pending approvals and tasks). A new frontend, approver or
// store joins
// its table the day it exists, and every promise is checked on it.
//
// It is a module of its own, for tests only: it imports every adapter.
// Run it with
//
//	go test -race github.com/toolbelt-go/tool/internal/promises
//
// which ends by printing every combination it covered.
package promises
