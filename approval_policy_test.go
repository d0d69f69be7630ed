package tool_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/tool"
)

func TestPolicies(t *testing.T) {
	in := func(s tool.Safety, tier tool.Tier, mode tool.RequireMode) tool.PolicyInput {
		return tool.PolicyInput{Tool: "t", Safety: s, Tier: tier, Requirement: tool.Requirement{Mode: mode}}
	}
	cases := []struct {
		in                                                    tool.PolicyInput
		askWrites, readOnly, allow, nonInter, denyDestructive tool.Verdict
	}{
		{in(tool.SafetyReadOnly, 0, 0), tool.VerdictAllow, tool.VerdictAllow, tool.VerdictAllow, tool.VerdictAllow, tool.VerdictAllow},
		{in(tool.SafetyMutating, 0, 0), tool.VerdictAsk, tool.VerdictDeny, tool.VerdictAllow, tool.VerdictDeny, tool.VerdictAsk},
		{in(tool.SafetyUnspecified, 0, 0), tool.VerdictAsk, tool.VerdictDeny, tool.VerdictAllow, tool.VerdictDeny, tool.VerdictAsk},
		{in(tool.SafetyDestructive, 0, 0), tool.VerdictAsk, tool.VerdictDeny, tool.VerdictAllow, tool.VerdictDeny, tool.VerdictDeny},
		{in(tool.SafetyNetwork, 0, 0), tool.VerdictAsk, tool.VerdictDeny, tool.VerdictAllow, tool.VerdictDeny, tool.VerdictAsk},
		{in(tool.SafetyMutating, tool.TierObserve, 0), tool.VerdictAllow, tool.VerdictDeny, tool.VerdictAllow, tool.VerdictAllow, tool.VerdictAllow},
		{in(tool.SafetyReadOnly, tool.TierConfirm, 0), tool.VerdictAsk, tool.VerdictAsk, tool.VerdictAllow, tool.VerdictDeny, tool.VerdictAsk},
		{in(tool.SafetyMutating, 0, tool.RequireAuto), tool.VerdictAllow, tool.VerdictDeny, tool.VerdictAllow, tool.VerdictAllow, tool.VerdictAllow},
		{in(tool.SafetyReadOnly, tool.TierObserve, tool.RequireAskAlways), tool.VerdictAsk, tool.VerdictAsk, tool.VerdictAllow, tool.VerdictDeny, tool.VerdictAsk},
		{in(tool.SafetyReadOnly, 0, tool.RequireScoped), tool.VerdictAsk, tool.VerdictAsk, tool.VerdictAllow, tool.VerdictDeny, tool.VerdictAsk},
		// A destructive call is denied whatever lets other calls run.
		{in(tool.SafetyDestructive, tool.TierObserve, 0), tool.VerdictAllow, tool.VerdictDeny, tool.VerdictAllow, tool.VerdictAllow, tool.VerdictDeny},
		{in(tool.SafetyDestructive, 0, tool.RequireAuto), tool.VerdictAllow, tool.VerdictDeny, tool.VerdictAllow, tool.VerdictAllow, tool.VerdictDeny},
		{in(tool.SafetyDestructive, tool.TierConfirm, tool.RequireAskAlways), tool.VerdictAsk, tool.VerdictDeny, tool.VerdictAllow, tool.VerdictDeny, tool.VerdictDeny},
	}
	for _, c := range cases {
		name := c.in.Safety.String() + "/" + c.in.Tier.String() + "/" + c.in.Requirement.Mode.String()
		assert.Equal(t, c.askWrites, tool.AskForWritesPolicy().Decide(c.in), "ask-for-writes %s", name)
		assert.Equal(t, c.readOnly, tool.ReadOnlyPolicy().Decide(c.in), "read-only %s", name)
		assert.Equal(t, c.allow, tool.AllowAllPolicy().Decide(c.in), "allow-all %s", name)
		assert.Equal(t, tool.VerdictDeny, tool.DenyAllPolicy().Decide(c.in), "deny-all %s", name)
		assert.Equal(t, c.nonInter, tool.NonInteractive(nil).Decide(c.in), "non-interactive %s", name)
		assert.Equal(t, c.denyDestructive, tool.DenyDestructivePolicy().Decide(c.in), "deny-destructive %s", name)
		if c.denyDestructive != tool.VerdictAsk {
			assert.Equal(t, c.denyDestructive, tool.NonInteractive(tool.DenyDestructivePolicy()).Decide(c.in), "non-interactive deny-destructive %s", name)
		}
	}
}
