package tooleino

import "strconv"

// The words the model reads that this package writes, in one place. Every
// other text a call answers with is the registry's.

// notFromEino and notFromEinoHint are what the model reads when the host
// chose [Approver] and a call came by another path than this package's
// tools, where no Eino interrupt can ask.
const (
	notFromEino     = "it needs the user's approval, which only the Eino agent can ask for, and it did not come through the Eino agent"
	notFromEinoHint = "tell the user it needs their approval"
)

// notRelayed is what the model reads of a call whose approval was
// deferred to a party this package can neither ask through an interrupt
// nor wait for (the host's own deferring approver).
func notRelayed(name string) string {
	return "The call to " + name + " needs the user's approval, which was asked for outside this conversation, " +
		"and this agent cannot wait for the answer, so it did not run. Do not repeat it now; tell the user it needs their approval."
}

// notOffered is what the model reads of a call to a tool the registry
// holds but the agent was not given.
func notOffered(name string, offered []string) string {
	s := "Error: there is no tool named " + strconv.QuoteToASCII(cut(name, 64)) + " in this conversation (names are case-sensitive)."
	if len(offered) > 0 {
		s += " Available tools: " + joinLimited(offered, 40) + "."
	}
	return s
}

// cut bounds s to n bytes, on a rune boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// joinLimited lists the first n names, and how many more there are.
func joinLimited(names []string, n int) string {
	s := ""
	for i, name := range names {
		if i == n {
			return s + " and " + strconv.Itoa(len(names)-n) + " more"
		}
		if i > 0 {
			s += ", "
		}
		s += name
	}
	return s
}
