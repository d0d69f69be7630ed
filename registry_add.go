package tool

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/toolbelt-go/tool/internal/jsonparse"
	"github.com/toolbelt-go/tool/internal/schema"
	"github.com/toolbelt-go/tool/internal/text"
)

// DefinitionError is one problem with a tool that [Registry.Add] refused.
type DefinitionError struct {
	Tool    string // the tool's name as given (may be invalid)
	Index   int    // its position in the Add call
	Problem string
	Err     error // the underlying error, if any
}

func (e *DefinitionError) Error() string {
	name := e.Tool
	if name == "" {
		name = "#" + strconv.Itoa(e.Index)
	}
	return "tool " + strconv.Quote(name) + ": " + e.Problem
}

func (e *DefinitionError) Unwrap() error { return e.Err }

// Definer is anything with a [Definition]: a [Tool] that takes the host's
// state, or an [AnyTool] that needs none. It is what [Registry.Add] takes,
// so one call registers both kinds.
type Definer interface {
	Definition() Definition
}

// Add registers tools: each a [Tool] of the registry's state type C, or an
// [AnyTool] (from [New], [NewRaw], [NewPaginated]), which needs no state.
// Either all of them are added or, if any has a problem, none is, and the
// error lists every problem found, one [*DefinitionError] each (use
// errors.As, or errors.Join's Unwrap() []error): an invalid or duplicate
// name, an empty description, an input schema that does not compile, whose
// root is not an object, or that refers outside itself, a tool whose
// argument type cannot be used, a tool for another state type.
func (r *Registry[C]) Add(tools ...Definer) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	added := make(map[string]*entry[C], len(tools))
	var errs []error
	var warnings []*DefinitionError
	for i, d := range tools {
		t, problem := r.toolOf(i, d)
		if problem != nil {
			errs = append(errs, problem)
			continue
		}
		e, problems, warns := r.check(i, t)
		warnings = append(warnings, warns...)
		if e != nil {
			if _, dup := r.lookup(e.def.Name); dup {
				problems = append(problems, &DefinitionError{Tool: e.def.Name, Index: i, Problem: "a tool with this name is already registered"})
			} else if _, dup := added[e.def.Name]; dup {
				problems = append(problems, &DefinitionError{Tool: e.def.Name, Index: i, Problem: "the name appears twice in this Add call"})
			} else if len(problems) == 0 {
				added[e.def.Name] = e
			}
		}
		errs = append(errs, problems...)
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	for n, e := range added {
		r.tools.Store(n, e)
	}
	r.count.Add(int64(len(added)))
	r.warnings = append(r.warnings, warnings...)
	r.changed()
	return nil
}

// Warnings returns the problems found in registered tools that did not stop
// them from being registered: a schema that may be slow to validate (see
// RegistryOptions.AllowCostlySchemas), a struct tag that was read in a way
// its author may not expect. Review them once, at start-up.
func (r *Registry[C]) Warnings() []*DefinitionError {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.warnings)
}

// toolOf returns d as a Tool[C]: itself, or an AnyTool adapted. Anything
// else, a tool for another state type say, is a problem.
func (r *Registry[C]) toolOf(i int, d Definer) (Tool[C], *DefinitionError) {
	if d == nil || isNilPointer(d) {
		return nil, &DefinitionError{Index: i, Problem: "the tool is nil"}
	}
	switch t := d.(type) {
	case Tool[C]:
		return t, nil
	case AnyTool:
		return Adapt[C](t), nil
	}
	name := ""
	if def, err := safeDefinition(d); err == nil {
		name = def.Name
	}
	want := reflect.TypeFor[C]().String()
	problem := "it is neither a tool.Tool[" + want + "] nor a tool.AnyTool (it has no matching Run method)"
	if m, ok := reflect.TypeOf(d).MethodByName("Run"); ok && m.Type.NumIn() == 3 {
		if got := m.Type.In(2).String(); strings.Contains(got, "tool.Call[") {
			problem = "it takes host state of another type (its Run takes " + got + "), and this registry's state type is " + want +
				": register it in a registry of its own state type, or build it with tool.New to need no state"
		}
	}
	return nil, &DefinitionError{Tool: name, Index: i, Problem: problem}
}

// check validates one tool; it returns its entry (nil when the tool is
// unusable) and its problems.
func (r *Registry[C]) check(i int, t Tool[C]) (e *entry[C], problems []error, warnings []*DefinitionError) {
	def, err := safeDefinition(t)
	if err != nil {
		return nil, []error{&DefinitionError{Index: i, Problem: err.Error(), Err: err}}, nil
	}
	bad := func(problem string, err error) {
		problems = append(problems, &DefinitionError{Tool: def.Name, Index: i, Problem: problem, Err: err})
	}
	if !ValidName(def.Name) {
		bad("invalid name "+text.Quote(def.Name, 80)+": use 1 to 64 of a-z, A-Z, 0-9, '_' and '-'", nil)
	}
	if strings.TrimSpace(def.Description) == "" {
		bad("the description is empty; the model needs it to know when to call the tool", nil)
	}
	if def.Timeout < 0 || def.IdleTimeout < 0 {
		bad("Timeout and IdleTimeout must not be negative", nil)
	}
	if def.MaxOutputBytes < 0 {
		bad("MaxOutputBytes is negative", nil)
	}
	limits, override := def.CallLimits, false
	if l, ok := r.opts.CallLimits[def.Name]; ok {
		limits, override = l, true
	}
	keys, problem := limitKeys(def.Name, limits)
	if problem != "" && override {
		problem += " (in RegistryOptions.CallLimits)"
	}
	if problem != "" {
		bad(problem, nil)
	}
	pf := newPreflight(t, r.opts.Limits)
	if pf.err != nil {
		bad(pf.err.Error(), pf.err)
	} else if pf.args != nil {
		costly, warn := pf.args.costProblems()
		switch {
		case costly != "" && r.opts.AllowCostlySchemas:
			warnings = append(warnings, &DefinitionError{Tool: def.Name, Index: i, Problem: costly})
		case costly != "":
			bad(costly+" (set RegistryOptions.AllowCostlySchemas to register it anyway)", nil)
		case warn != "":
			warnings = append(warnings, &DefinitionError{Tool: def.Name, Index: i, Problem: warn})
		}
		if at := pf.args.schema.DefaultsAtRisk(); len(at) > 0 {
			warnings = append(warnings, &DefinitionError{Tool: def.Name, Index: i, Problem: "a default filled in at " + strings.Join(at, ", ") +
				" may make a valid call invalid (something there judges the object as a whole: maxProperties, dependentRequired, an enum, a oneOf…); " +
				"such a default is left out of the calls it would break, so the tool may get the key absent"})
		}
	}
	if len(def.OutputSchema) > 0 {
		// Nothing is checked against the output schema: its numbers face
		// no argument limit.
		if _, err := schema.Compile(def.OutputSchema, jsonparse.Limits{}); err != nil {
			bad("output schema: "+err.Error(), err)
		}
	}
	c, _ := As[Classifier](t)
	return &entry[C]{tool: t, def: def, pf: pf, classifier: c, run: runner(t), rt: r.runtime(), limits: limits, limitKeys: keys}, problems, warnings
}

func safeDefinition(t Definer) (def Definition, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("Definition panicked: %v", p)
		}
	}()
	return t.Definition(), nil
}

func isNilPointer(v any) bool {
	rv := reflect.ValueOf(v)
	return rv.Kind() == reflect.Pointer && rv.IsNil()
}

// ValidName reports whether name is a valid tool name: 1 to 64 of a-z,
// A-Z, 0-9, '_' and '-'.
func ValidName(name string) bool {
	if len(name) == 0 || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// MustAdd is like Add but panics on error, for tools registered at init.
func (r *Registry[C]) MustAdd(tools ...Definer) {
	if err := r.Add(tools...); err != nil {
		panic("tool: " + err.Error())
	}
}
