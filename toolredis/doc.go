// Package toolredis keeps the state a conversation needs from one call to
// the next on Redis, so that the next call may land on any replica: the
// output a result's cap cut, which read_output reads back
// ([tool.RegistryOptions.Spill], [SpillStore]); what approval remembers —
// "allow always" answers and the one-time claims of resumed approvals
// ([tool.ApprovalOptions.Store], [ApprovalStore]); the records that answer
// a repeated call ([tool.RegistryOptions.Records], [RecordStore]); and
// the counts that hold the tools' call limits across replicas
// ([tool.RegistryOptions.Limiter], [Limiter]).
//
// Page cursors and the state of a deferred approval need nothing here: they
// are signed with the registry's [keyring.Keyring], so replicas that share one
// ([keyring.FromSecret]) verify each other's. What they point at, and
// the record that an approval was used, is what lives in Redis.
//
//	rdb := redis.NewClient(&redis.Options{Addr: addr, ContextTimeoutEnabled: true})
//	opts := &toolredis.Options{Namespace: "support-agent"}
//	keys, _ := keyring.FromSecret(secret) // the same secret on every replica
//	reg := tool.NewRegistry[State](&tool.RegistryOptions{
//		Keyring: keys,
//		Spill:   toolredis.NewSpillStore(rdb, opts),
//	})
//	reg.Use(tool.Approval(&tool.ApprovalOptions[State]{
//		Approver: approver,
//		Store:    toolredis.NewApprovalStore(rdb, opts),
//	}))
//
// # Keys, sizes and expiry
//
// Every key starts with [Options.Namespace] (the rate limiter's start with
// "rate:" and then the namespace): the replicas of one agent share it, and
// different agents sharing a Redis use different ones. The rest of a key is
// a hash of the id, session or approval key, so keys have a fixed length
// whatever the model or the host put in them (a session's spilled entries
// also carry a digest of the session in braces: the hash tag that keeps
// them, and the session's list of them, in one slot of a Redis Cluster,
// where one script uses them together). Values are bounded: a spilled
// entry by [Options.MaxSpillBytes] and a session's spilled entries together
// by [Options.MaxSessionSpillBytes], a record by [Options.MaxRecordBytes], a
// session's claims by [Options.MaxSessionClaims]; the others are small.
// Every key expires by Redis's own TTL, at the time the pipeline gives
// (for spilled output, the cursor TTL of the keyring), with millisecond
// precision; nothing is ever scanned or listed (a session's spilled entries
// are dropped from the front of its list, each once), so no call costs more
// as the store grows.
//
// Expiry times are absolute (SET … PXAT), read by Redis's clock: keep the
// clocks of replicas and Redis in sync (NTP), since a skew shortens or
// lengthens every lifetime by as much.
//
// # When Redis fails
//
// Every operation returns within [Options.Timeout] (one second by default)
// or when its context is done, whichever comes first, even if Redis stops
// answering and the client was built without ContextTimeoutEnabled. The
// pipeline then falls back as [tool.SpillStore] and [tool.ApprovalStore]
// document: a result that cannot be spilled is cut without a way to read on;
// a read_output call that cannot read fails, and its cursor reads again
// once Redis answers (a missing entry, unlike an unreachable Redis, is
// reported as no longer kept); an answer that cannot be looked up or
// stored means asking again; a claim that cannot be recorded means the
// resumed call does not run. Nothing fails open.
//
// Give the client finite DialTimeout, ReadTimeout and WriteTimeout (go-redis
// has defaults), so that the connection behind an operation given up on is
// released too; ContextTimeoutEnabled lets a call's deadline end it sooner.
//
// Size Redis for what it keeps (maxmemory), and prefer the noeviction
// policy, Redis's default: a Redis that evicts under memory pressure may
// drop a claim before it expires, which would let a resumed approval be
// used a second time. Under noeviction a full Redis refuses writes, which
// falls back as above.
package toolredis
