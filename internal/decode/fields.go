package decode

import (
	"reflect"
	"sort"
	"strings"
	"sync"
)

// field is one JSON-visible struct field, located by its index path.
type field struct {
	name  string
	index []int
	typ   reflect.Type
}

var fieldCache sync.Map // reflect.Type -> map[string]field

// Fields returns the JSON names a struct type decodes, by the same rules as
// encoding/json: json tag names, "-" skipped, unexported fields skipped,
// untagged embedded structs promoted, and at equal depth a tagged field wins
// while two untagged ones cancel out.
func Fields(t reflect.Type) []string {
	m := fieldsOf(t)
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func fieldsOf(t reflect.Type) map[string]field {
	if f, ok := fieldCache.Load(t); ok {
		return f.(map[string]field)
	}
	type candidate struct {
		field
		depth  int
		tagged bool
	}
	byName := map[string][]candidate{}
	type queued struct {
		t     reflect.Type
		index []int
	}
	current := []queued{{t: t}}
	visited := map[reflect.Type]bool{}
	for depth := 0; len(current) > 0; depth++ {
		var next []queued
		for _, q := range current {
			if visited[q.t] {
				continue
			}
			visited[q.t] = true
			for i := 0; i < q.t.NumField(); i++ {
				sf := q.t.Field(i)
				if sf.Anonymous {
					ft := sf.Type
					if ft.Kind() == reflect.Pointer {
						ft = ft.Elem()
					}
					if !sf.IsExported() && ft.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, _, _ := strings.Cut(tag, ",")
				index := append(append([]int(nil), q.index...), i)
				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if name == "" && sf.Anonymous && ft.Kind() == reflect.Struct {
					next = append(next, queued{t: ft, index: index})
					continue
				}
				tagged := name != ""
				if name == "" {
					name = sf.Name
				}
				byName[name] = append(byName[name], candidate{field{name, index, sf.Type}, depth, tagged})
			}
		}
		current = next
	}
	out := map[string]field{}
	for name, cands := range byName {
		best := cands[0].depth
		var top []candidate
		for _, c := range cands {
			if c.depth < best {
				best, top = c.depth, nil
			}
			if c.depth == best {
				top = append(top, c)
			}
		}
		if len(top) == 1 {
			out[name] = top[0].field
			continue
		}
		var tagged []candidate
		for _, c := range top {
			if c.tagged {
				tagged = append(tagged, c)
			}
		}
		if len(tagged) == 1 {
			out[name] = tagged[0].field
		}
	}
	f, _ := fieldCache.LoadOrStore(t, out)
	return f.(map[string]field)
}

// Field returns where the JSON name decodes into a struct type, by the
// rules of Fields: the index path of the field and its type.
func Field(t reflect.Type, name string) (index []int, typ reflect.Type, ok bool) {
	f, ok := fieldsOf(t)[name]
	return f.index, f.typ, ok
}
