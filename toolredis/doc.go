// Package toolredis keeps the state a conversation needs from one call to
// the next on Redis, so that the next call may land on any replica: the
// output a result's cap cut, which read_output reads back
// ([tool.RegistryOptions.Spill], [SpillStore]); what approval remembers —
// "allow always" answers and the one-time claims of resumed approvals
// ([tool.ApprovalOptions.Store], [ApprovalStore]); the records that answer
// a repeated call ([tool.RegistryOptions.Records], [RecordStore]); the
// counts that hold the tools' call limits across replicas
// ([tool.RegistryOptions.Limiter], [Limiter]); and the approvals waiting
// for a person's answer ([PendingApprovalStore]).
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
// whatever the model or the host put in them. Keys that one script uses
// together carry a hash tag, which keeps them in one slot of a Redis
// Cluster: a session's spilled entries the digest of the session; a
// session's records and one-time claims the tag of the session's bucket,
// one of 1,024, which they share with the bucket's marker (see below).
// Values are bounded: a spilled entry by [Options.MaxSpillBytes] and a
// session's spilled entries together by [Options.MaxSessionSpillBytes], a
// record by [Options.MaxRecordBytes] and a session's claims and records by
// [Options.MaxSessionRecordBytes], a session's one-time claims by
// [Options.MaxSessionClaims]; the others are small. Every key expires by
// Redis's own TTL, at the time the pipeline gives (for spilled output, the
// cursor TTL of the keyring), with millisecond precision, except the
// buckets' markers, at most 1,024 small hashes per namespace; nothing is
// ever scanned or listed (a session's spilled entries and records are
// dropped from the front of its list, each once), so no call costs more as
// the store grows.
//
// Expiry times are absolute (SET … PXAT), read by Redis's clock: keep the
// clocks of replicas and Redis in sync (NTP), since a skew shortens or
// lengthens every lifetime by as much.
//
// The stores need Redis 7.0 or later (scripts with flags, INFO of several
// sections), or a server that speaks as it does.
//
// # When Redis fails
//
// Every operation returns within [Options.Timeout] (one second by default)
// or when its context is done, whichever comes first, even if Redis stops
// answering and the client was built without ContextTimeoutEnabled. The
// pipeline then falls back as [tool.SpillStore], [tool.ApprovalStore] and
// [tool.RecordStore] document: a result that cannot be spilled is cut
// without a way to read on; a read_output call that cannot read fails, and
// its cursor reads again once Redis answers (a missing entry, unlike an
// unreachable Redis, is reported as no longer kept); an answer that cannot
// be looked up or stored means asking again; a claim that cannot be made
// means the call, or the resumed call, does not run. Nothing fails open.
//
// A claim belongs to the call that made it, so the client's retry of a
// command whose reply was lost finds its own claim; a claim Redis made
// after the store gave up on it lapses within seconds (a call's, by its
// lease) or is given back once Redis answers (a resumed approval's).
//
// Give the client finite DialTimeout, ReadTimeout and WriteTimeout (go-redis
// has defaults), so that the connection behind an operation given up on is
// released too; ContextTimeoutEnabled lets a call's deadline end it sooner.
//
// # When Redis loses data
//
// A claim that Redis forgot (a call's, or a resumed approval's) would let a
// call that ran run again, or a used approval be used again. Redis forgets
// when it restarts without persistence that keeps every write (appendonly
// yes with appendfsync always), when it is flushed, when it evicts keys
// under memory pressure (any maxmemory-policy but noeviction), and when a
// replica that lacks the last writes takes over. The stores notice: each
// bucket has a marker, a small hash with no expiry, recording the server
// run it was written under and how many keys that server had evicted, and
// the script that grants a claim checks it against the server's own INFO.
// A marker gone, written under another run, or an eviction since, means
// the bucket may have lost claims: unless the server is one that keeps
// every write it acknowledged ([Options.Durability]; by default the store
// asks it with CONFIG GET), claims there are refused, with an error
// wrapping [tool.ErrStoreLostData], until [Options.ClaimLifetime] after
// the loss, when any claim it lost has expired anyway. A server without
// such persistence is, for the same reason, not trusted for that long
// after it starts. docs/replicas.md says what configuration the guarantees
// need, and what happens without it.
//
// Size Redis for what it keeps (maxmemory) and keep the noeviction policy,
// Redis's default: under it a full Redis refuses writes, which falls back
// as above, except that the small writes that say what became of a call
// (a claim given back, started, or marked as run without a record) are
// let through.
package toolredis
