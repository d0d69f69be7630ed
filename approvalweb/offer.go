package approvalweb

import (
	"fmt"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/internal/text"
)

// maxWholeArgs bounds the arguments of a call the page can allow: a call
// whose arguments are larger is not shown whole, so it cannot be allowed
// (or edited) on the page, only denied. It is the registry's default bound
// on arguments ([tool.Limits].MaxBytes), so that every call a registry
// takes by default can be read whole, and allowed, here.
const maxWholeArgs = 1 << 20

// offer is the answers the page offers a person for one waiting call. One
// function decides it ([Handler.offerFor]), for what the page shows and
// for what it accepts: a hand-made form cannot get an answer the page
// does not offer. A deny is always offered.
type offer struct {
	AllowOnce   bool
	AllowAlways bool
	Edit        bool
	// TooLarge says why allowing is not offered: the arguments are larger
	// than the page shows whole, and a person allows only what they can
	// read.
	TooLarge string
}

// offerFor decides the answers the page offers for p:
//
//   - allow once: when the page can show the arguments whole (at most
//     maxWholeArgs), since a person allows only what they can read;
//   - allow always: as allow once, and where the core remembers it: a
//     call with a session, not asked about every time;
//   - edit: as allow once, where Options.Editable allows it, and when the
//     arguments, as the edit box holds them, fit in Options.MaxArgsBytes
//     (an edit that could not be sent back unchanged is no edit);
//   - deny: always.
func (h *Handler) offerFor(p *tool.PendingApproval) offer {
	r := &p.Request
	if len(r.Args) > maxWholeArgs {
		return offer{TooLarge: fmt.Sprintf("Its arguments are %s: more than this page shows whole (%s), so it cannot be allowed here, only denied.", text.Size(int64(len(r.Args))), text.Size(maxWholeArgs))}
	}
	return offer{
		AllowOnce:   true,
		AllowAlways: p.Session != "" && r.Requirement.Mode != tool.RequireAskAlways,
		Edit:        h.editable(r) && len(editJSON(r.Args)) <= h.maxArgs,
	}
}

// offers reports whether o offers the decision k.
func (o offer) offers(k tool.DecisionKind) bool {
	switch k {
	case tool.DecisionAllowOnce:
		return o.AllowOnce
	case tool.DecisionAllowAlways:
		return o.AllowAlways
	case tool.DecisionEdit:
		return o.Edit
	case tool.DecisionDeny:
		return true
	}
	return false
}

// size says n bytes in words: "512 bytes", "300 KiB", "1.5 MiB".
func size(n int) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return fmt.Sprintf("%d KiB", (n+1<<9)>>10)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
