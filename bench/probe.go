package bench

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// A Probe is one set of arguments sent to every case to see what it
// accepts. Valid says whether the search tool's schema accepts them, as a
// JSON Schema validator sees them: parsed, so of a duplicate key only the
// last value.
type Probe struct {
	Name  string
	Args  []byte
	Valid bool
}

// Probes returns the arguments the acceptance table sends: the benchmark's
// two calls, then one broken constraint or oddity each.
func Probes() []Probe {
	const q = `"query":"func NewRegistry"`
	return []Probe{
		{"the valid call", ValidArgs, true},
		{"the invalid call (lang golang, limit 5000)", InvalidArgs, false},
		{"lang not in the enum", []byte(`{` + q + `,"lang":"golang"}`), false},
		{"limit above its maximum", []byte(`{` + q + `,"limit":5000}`), false},
		{"limit below its minimum (0)", []byte(`{` + q + `,"limit":0}`), false},
		{"path not matching its pattern", []byte(`{` + q + `,"path":"a b"}`), false},
		{"query empty (minLength 1)", []byte(`{"query":""}`), false},
		{"query of 201 characters (maxLength 200)", []byte(`{"query":"` + strings.Repeat("x", 201) + `"}`), false},
		{"query missing (required)", []byte(`{"lang":"go"}`), false},
		{"unknown key", []byte(`{` + q + `,"limti":50}`), false},
		{"key in another case (Query)", []byte(`{"Query":"func NewRegistry"}`), false},
		{"duplicate key (lang golang, then go)", []byte(`{` + q + `,"lang":"golang","lang":"go"}`), true},
		{`wrong type (limit "50")`, []byte(`{` + q + `,"limit":"50"}`), false},
		{"null for a string (lang null)", []byte(`{` + q + `,"lang":null}`), false},
		{"trailing data after the object", []byte(`{` + q + `} {}`), false},
		{"cut off", []byte(`{"query":"func New`), false},
		{"limit 50.0 (an integer, per JSON Schema)", []byte(`{` + q + `,"limit":50.0}`), true},
	}
}

// An Outcome is what a framework did with one call.
type Outcome int

const (
	// Ran means the function ran and its result went back.
	Ran Outcome = iota
	// Refused means the framework answered with an error result (or
	// error) for the model, without running the function.
	Refused
	// NotSent means the call never became a tool call: the client would
	// not send it, or the server answered with a JSON-RPC error.
	NotSent
	// EndsRun means the framework ended the agent's whole run with the
	// tool's error: the model is never answered.
	EndsRun
)

// String returns the word the acceptance table uses.
func (o Outcome) String() string {
	switch o {
	case Ran:
		return "runs"
	case Refused:
		return "refused"
	case NotSent:
		return "not sent"
	case EndsRun:
		return "ends the run"
	}
	return fmt.Sprintf("Outcome(%d)", int(o))
}

// Try sends each probe to the setup and reports what the framework did with
// it. An error of the path itself (a client that refuses to encode the
// arguments, a JSON-RPC parse error) is the NotSent outcome, not an error.
func (s *Setup) Try(ctx context.Context, probes []Probe) []Outcome {
	got := make([]Outcome, len(probes))
	for i, p := range probes {
		_, rejected, err := s.Call(ctx, p.Args)
		switch {
		case errors.Is(err, errRunEnded):
			got[i] = EndsRun
		case err != nil:
			got[i] = NotSent
		case rejected:
			got[i] = Refused
		default:
			got[i] = Ran
		}
	}
	return got
}

// AcceptanceTable sends every probe to every setup and returns a markdown
// table: one row per probe, one column per setup, each cell what the
// framework did.
func AcceptanceTable(ctx context.Context, setups []*Setup) string {
	probes := Probes()
	cols := make([][]Outcome, len(setups))
	for i, s := range setups {
		cols[i] = s.Try(ctx, probes)
	}
	var b strings.Builder
	b.WriteString("| arguments | JSON Schema |")
	for _, s := range setups {
		fmt.Fprintf(&b, " %s |", s.ID)
	}
	b.WriteString("\n|---|---|")
	b.WriteString(strings.Repeat("---|", len(setups)))
	b.WriteString("\n")
	for i, p := range probes {
		verdict := "invalid"
		if p.Valid {
			verdict = "valid"
		}
		fmt.Fprintf(&b, "| %s | %s |", p.Name, verdict)
		for j := range setups {
			o := cols[j][i]
			cell := o.String()
			// Bold marks a disagreement with the schema: an invalid call
			// that runs, or a valid one that does not.
			if (o == Ran) != p.Valid {
				cell = "**" + cell + "**"
			}
			fmt.Fprintf(&b, " %s |", cell)
		}
		b.WriteString("\n")
	}
	return b.String()
}
