package tool

import (
	"encoding/json"
	"strconv"
)

// OutputArgs are arguments a tool with long output can take, to let the
// model choose between an overview and the full detail. Embed it in the
// argument type and pass it to [CapItems] or [CapFiles].
type OutputArgs struct {
	DetailLevel string `json:"detail_level,omitempty" jsonschema:"enum=compact,enum=full,description=compact (the default) gives a capped overview; full pages through every result with offset and limit"`
	Offset      int    `json:"offset,omitempty" jsonschema:"minimum=0,description=With detail_level full: the first result to show"`
	Limit       int    `json:"limit,omitempty" jsonschema:"minimum=1,maximum=1000,description=The most results to show"`
}

// OutputArgsSchema is the JSON Schema of OutputArgs' properties, for raw
// tools to add to their own "properties".
func OutputArgsSchema() json.RawMessage {
	return json.RawMessage(`{"detail_level":{"type":"string","enum":["compact","full"],"description":"compact (the default) gives a capped overview; full pages through every result with offset and limit"},` +
		`"offset":{"type":"integer","minimum":0,"description":"With detail_level full: the first result to show"},` +
		`"limit":{"type":"integer","minimum":1,"maximum":1000,"description":"The most results to show"}}`)
}

// OutputGuard holds the caps of the two output modes. The zero value uses
// the defaults.
type OutputGuard struct {
	// ExploreCap is the most results shown in exploring (compact) mode
	// when the call passes no limit; default 200.
	ExploreCap int
	// PageLimit is the page size of focused (full) mode when the call
	// passes no limit; default 50.
	PageLimit int
}

// Overflow tells the model that not every result was shown, and how to see
// more. Include it in the tool's output when it is not nil.
type Overflow struct {
	Shown int    `json:"shown"`
	Total int    `json:"total"`
	Hint  string `json:"hint"`
	// NextOffset is set in focused mode when another page exists.
	NextOffset *int `json:"next_offset,omitempty"`
}

// CapItems applies the guard to a tool's results. In exploring mode (the
// default) it shows the first ExploreCap results, or the first Limit if
// the call passed one. In focused mode (detail_level "full") it shows the
// page at Offset of Limit results (default PageLimit); a call that passes
// an Offset pages this way whatever its detail level. The Overflow is nil
// when every result was shown; its NextOffset is set only in focused mode
// when another page exists.
func CapItems[T any](g OutputGuard, items []T, a OutputArgs) ([]T, *Overflow) {
	return capList(g, items, a, "results")
}

// CapFiles is CapItems for lists of files; the hints speak of files.
func CapFiles[T any](g OutputGuard, files []T, a OutputArgs) ([]T, *Overflow) {
	return capList(g, files, a, "files")
}

func capList[T any](g OutputGuard, items []T, a OutputArgs, what string) ([]T, *Overflow) {
	total := len(items)
	// An offset is a place in the whole list, which only focused mode
	// has: a call that passes one pages, whatever its detail level, rather
	// than be shown the first results again without a word.
	if a.DetailLevel != "full" && a.Offset <= 0 {
		limit := g.ExploreCap
		if limit <= 0 {
			limit = 200
		}
		if a.Limit > 0 {
			limit = a.Limit
		}
		if total <= limit {
			return items, nil
		}
		return items[:limit], &Overflow{Shown: limit, Total: total,
			Hint: "Showing the first " + strconv.Itoa(limit) + " of " + strconv.Itoa(total) + " " + what +
				". Narrow the request, or pass detail_level \"full\" with offset and limit to page through all of them."}
	}
	limit := g.PageLimit
	if limit <= 0 {
		limit = 50
	}
	if a.Limit > 0 {
		limit = a.Limit
	}
	off := min(max(a.Offset, 0), total)
	end := min(off+limit, total)
	page := items[off:end]
	if off == 0 && end == total {
		return page, nil
	}
	o := &Overflow{Shown: len(page), Total: total}
	switch {
	case len(page) == 0:
		o.Hint = "Offset " + strconv.Itoa(a.Offset) + " is past the end: there are " + strconv.Itoa(total) + " " + what + "."
	case end < total:
		next := end
		o.NextOffset = &next
		o.Hint = "Showing " + what + " " + strconv.Itoa(off+1) + " to " + strconv.Itoa(end) + " of " + strconv.Itoa(total) +
			". Call again with offset " + strconv.Itoa(next) + " for the next page."
	default:
		o.Hint = "Showing " + what + " " + strconv.Itoa(off+1) + " to " + strconv.Itoa(end) + " of " + strconv.Itoa(total) + "; this is the last page."
	}
	return page, o
}
