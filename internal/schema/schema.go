// Package schema compiles a tool's input schema once, at registration, into
// the two checkers preflight uses: the authority (santhosh-tekuri/jsonschema,
// which decides validity and describes every violation) and a fast path built
// here for the common keywords, which may only ever answer "certainly valid".
// Anything the fast path is unsure of goes to the authority.
package schema

import (
	"bytes"
	"container/list"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/toolbelt-go/tool/internal/jsonparse"
)

// resourceURL names the schema inside its private compiler. Nothing else is
// ever registered there, and the loader refuses everything else.
// It is hierarchical so that a relative reference resolves to another URL
// (which the loader refuses) rather than back to this one.
const resourceURL = "file:///toolbelt/input.json"

// Schema is a compiled input schema. It is immutable and safe for concurrent
// use.
type Schema struct {
	raw       json.RawMessage
	nums      jsonparse.Limits // the number limits it was compiled under
	authority *jsonschema.Schema
	root      *Node
	names     map[string]string // every declared property name, to itself
	cost      *costGraph        // the authority's schema, as the cost bounds read it
	costs     sync.Map          // argument depth → Cost

	leavesOnce sync.Once // fills the nodes' skeletonLeaf, for Skeleton

	defaultsOnce sync.Once // sets hasDefault and fills, for ApplyDefaults
	hasDefault   bool      // some subschema has a default
	fills        *fillPlan // where ApplyDefaults looks
}

// Names returns every property name the schema declares, at any depth,
// each mapped to itself: what [jsonparse.ParseKeys] shares rather than
// copies. The map is the schema's own; it must not be changed.
func (s *Schema) Names() map[string]string { return s.names }

// ErrExternalRef is the cause when a schema refers to a file or URL.
var ErrExternalRef = errors.New("schema refers to a document outside itself; only references inside it (#/$defs/..., an $id or $anchor it defines) and the JSON Schema metaschemas are allowed")

// ErrUnusable is the cause when a schema compiles but no call could pass
// it, or part of it: contradictory bounds, an empty enum, a default its own
// subschema refuses, a $ref loop with no base case.
var ErrUnusable = errors.New("schema cannot be satisfied")

type refusingLoader struct{}

func (refusingLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("%w: %q", ErrExternalRef, url)
}

// Compile checks raw and compiles it. The root must be an object schema
// ("type": "object"), which is what every model provider requires of a
// tool's parameters. Every number in the document must pass nums's number
// limits (MaxNumberLen, MaxExponent, the float64 range; zero fields mean no
// limit), the rule the arguments' numbers follow: a schema needs no number
// an argument could not carry, and comparing an argument with a number of
// a hundred thousand digits, or dividing it by 1e-100000, costs time and
// memory that grow with the digits. The numbers are checked while the
// document is read, before anything else looks at them.
//
// A compiled schema is immutable, so the same document is compiled once per
// process: hosts that build a registry per conversation register the same
// tools again and again, and compiling (which validates the document
// against the draft's metaschema) is most of what registration costs.
func Compile(raw json.RawMessage, nums jsonparse.Limits) (*Schema, error) {
	nums = numberLimits(nums)
	if s := cache.get(raw); s != nil {
		return s, s.CheckNumbers(nums)
	}
	s, err := compile(raw, nums)
	if err == nil {
		cache.put(raw, s)
	}
	return s, err
}

// numberLimits keeps the fields of lim that bound numbers.
func numberLimits(lim jsonparse.Limits) jsonparse.Limits {
	return jsonparse.Limits{MaxNumberLen: lim.MaxNumberLen, MaxExponent: lim.MaxExponent}
}

// CheckNumbers reports the first number of the schema that nums's number
// limits refuse, as a *NumberError; nil when there is none. It reads the
// document again unless s was compiled under the same limits.
func (s *Schema) CheckNumbers(nums jsonparse.Limits) error {
	nums = numberLimits(nums)
	if nums == s.nums {
		return nil
	}
	_, err := decodeOrdered(s.raw, nums)
	return err
}

// NumberError is the cause when a schema holds a number past the argument
// limits.
type NumberError struct {
	Pointer string // where, in the schema document
	Number  string // the literal, cut
	Err     *jsonparse.Error
}

func (e *NumberError) Error() string {
	at := "the number " + e.Number + " at " + showPtr(e.Pointer)
	switch e.Err.Kind {
	case jsonparse.NumberTooLong:
		return at + " is written with more than " + strconv.Itoa(e.Err.Limit) + " characters, more than an argument's number may have " +
			"(Limits.MaxNumberLength), so no call needs it; write it with fewer digits"
	case jsonparse.ExponentTooLarge:
		return at + " has an exponent beyond ±" + strconv.Itoa(e.Err.Limit) + ", more than an argument's number may have " +
			"(Limits.MaxExponent), so no call needs it, and checking arguments against it would take time and memory that grow with the exponent; " +
			"write it with an exponent within ±" + strconv.Itoa(e.Err.Limit)
	case jsonparse.NumberOutOfRange:
		return at + " is beyond what a float64 holds (about ±1.8e308), as no argument's number may be; write it within that range"
	}
	return at + " is not a valid number: " + e.Err.Error()
}

// cache keeps compiled schemas by their text, the most recent maxCached.
var cache = schemaCache{m: map[string]*list.Element{}}

const maxCached = 1024

type schemaCache struct {
	mu    sync.Mutex
	m     map[string]*list.Element // of *Schema, most recent at the front
	order list.List
}

func (c *schemaCache) get(raw []byte) *Schema {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.m[string(raw)]
	if !ok {
		return nil
	}
	c.order.MoveToFront(el)
	return el.Value.(*Schema)
}

func (c *schemaCache) put(raw []byte, s *Schema) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[string(raw)]; ok {
		return
	}
	c.m[string(raw)] = c.order.PushFront(s)
	for c.order.Len() > maxCached {
		old := c.order.Remove(c.order.Back()).(*Schema)
		delete(c.m, string(old.raw))
	}
}

func compile(raw json.RawMessage, nums jsonparse.Limits) (*Schema, error) {
	raw = slices.Clone(raw) // kept: the caller may reuse its bytes
	doc, err := decodeOrdered(raw, nums)
	var ne *NumberError
	var be boundError
	if errors.As(err, &ne) || errors.As(err, &be) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("schema is not valid JSON: %w", err)
	}
	obj, ok := doc.(*object)
	if !ok {
		return nil, errors.New(`schema root must be a JSON object with "type": "object"`)
	}
	if t, _ := obj.m["type"].(string); t != "object" {
		return nil, errors.New(`schema root must have "type": "object" (providers accept only object parameters)`)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(refusingLoader{})
	pats := &patterns{}
	c.UseRegexpEngine(pats.engine)
	if err := c.AddResource(resourceURL, plain(doc)); err != nil {
		return nil, err
	}
	authority, err := c.Compile(resourceURL)
	if err != nil {
		var le *jsonschema.LoadURLError
		if errors.As(err, &le) {
			return nil, fmt.Errorf("%w: %q", ErrExternalRef, le.URL)
		}
		return nil, fmt.Errorf("schema does not compile: %s", oneLine(err.Error()))
	}
	root, names := buildTree(doc, pats)
	s := &Schema{raw: raw, nums: nums, authority: authority, root: root, names: names, cost: newCostGraph(authority)}
	if problems := s.problems(c); len(problems) > 0 {
		return nil, fmt.Errorf("%w: %s", ErrUnusable, strings.Join(problems, "; "))
	}
	return s, nil
}

// Raw returns the schema's JSON text as given to Compile.
func (s *Schema) Raw() json.RawMessage { return s.raw }

// Root returns the fast-path tree of the root schema.
func (s *Schema) Root() *Node { return s.root }

// Valid reports whether the fast path is certain that v is valid. False
// means "ask the authority", not "invalid".
func (s *Schema) Valid(v any) bool { return s.root.ok(v) }

// Validate runs the authority. A non-nil error is a
// *jsonschema.ValidationError, or a panic from inside the validator turned
// into an error (validation never panics out of this package).
func (s *Schema) Validate(v any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("schema validator panicked: %v", r)
		}
	}()
	return s.authority.Validate(v)
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", "; ")
	if len(s) > 400 {
		s = s[:400] + "…"
	}
	return s
}

// object is a JSON object that remembers the order of its keys, so hints and
// examples list properties in the order the tool author wrote them.
type object struct {
	keys []string
	m    map[string]any
}

// MaxDepth is how deeply a schema document may nest objects and arrays.
// Tool schemas written by people or generated from Go types stay far below
// it; a deeper one (from a remote server, say) would only make every walk
// over it deep, so it is refused.
const MaxDepth = 256

// MaxObjects is how many JSON objects a schema document may hold (its
// subschemas, and any objects in its data). The validator's compiler
// takes time that grows with the square of the subschemas it queues:
// 20,000 empty subschemas, 58 KB of JSON, took it 1.9 s and 170 MB. A tool
// schema is sent to a model on every turn, so one of thousands of
// subschemas is refused rather than compiled; at this bound compiling
// stays near a tenth of a second.
const MaxObjects = 4096

// decodeOrdered decodes JSON with json.Number numbers and ordered objects,
// refusing numbers past nums (see Compile) with a *NumberError and
// documents of more than MaxObjects objects or MaxDepth levels.
func decodeOrdered(raw []byte, nums jsonparse.Limits) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	d := docDecoder{dec: dec, nums: nums}
	v, err := d.value(0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("unexpected data after the schema")
	}
	return v, nil
}

// boundError is a document over MaxDepth or MaxObjects: valid JSON, too
// large to take.
type boundError string

func (e boundError) Error() string { return string(e) }

type docDecoder struct {
	dec     *json.Decoder
	nums    jsonparse.Limits
	path    []string // pointer tokens of the value being read
	objects int      // the objects read so far
}

func (d *docDecoder) value(depth int) (any, error) {
	tok, err := d.dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		if depth == MaxDepth {
			return nil, boundError(fmt.Sprintf("the schema nests objects and arrays more than %d deep", MaxDepth))
		}
		switch t {
		case '{':
			if d.objects++; d.objects > MaxObjects {
				return nil, boundError(fmt.Sprintf("the schema holds more than %d objects (subschemas and data); split the tool, or reuse subschemas through $defs and $ref", MaxObjects))
			}
			o := &object{m: map[string]any{}}
			for d.dec.More() {
				kt, err := d.dec.Token()
				if err != nil {
					return nil, err
				}
				k := kt.(string)
				d.path = append(d.path, k)
				v, err := d.value(depth + 1)
				d.path = d.path[:len(d.path)-1]
				if err != nil {
					return nil, err
				}
				if _, dup := o.m[k]; dup {
					return nil, fmt.Errorf("duplicate key %q", k)
				}
				o.keys = append(o.keys, k)
				o.m[k] = v
			}
			_, err := d.dec.Token()
			return o, err
		case '[':
			a := []any{}
			for d.dec.More() {
				d.path = append(d.path, strconv.Itoa(len(a)))
				v, err := d.value(depth + 1)
				d.path = d.path[:len(d.path)-1]
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			_, err := d.dec.Token()
			return a, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	case json.Number:
		if e := jsonparse.CheckNumber(string(t), d.nums); e != nil {
			ptr := ""
			for _, p := range d.path {
				ptr += "/" + escape(p)
			}
			return nil, &NumberError{Pointer: ptr, Number: cutNumber(string(t)), Err: e}
		}
		return t, nil
	default:
		return t, nil
	}
}

// cutNumber shortens a number literal (ASCII) for a message.
func cutNumber(lit string) string {
	if len(lit) > 40 {
		return lit[:40] + "…"
	}
	return lit
}

// plain converts ordered objects back to the map[string]any the authority
// reads.
func plain(v any) any {
	switch x := v.(type) {
	case *object:
		m := make(map[string]any, len(x.m))
		for k, e := range x.m {
			m[k] = plain(e)
		}
		return m
	case []any:
		a := make([]any, len(x))
		for i, e := range x {
			a[i] = plain(e)
		}
		return a
	}
	return v
}
