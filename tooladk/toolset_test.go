package tooladk_test

import (
	"context"
	"strings"
	"testing"

	"google.golang.org/adk/model"
	adktool "google.golang.org/adk/tool"
	"google.golang.org/genai"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/dialect"
	"github.com/toolbelt-go/tool/tooladk"
	"github.com/toolbelt-go/tool/tooladk/adktest"
)

// declarations returns the function declarations of the first request the
// model was sent, by name.
func declarations(t *testing.T, reqs []*model.LLMRequest) map[string]*genai.FunctionDeclaration {
	t.Helper()
	if len(reqs) == 0 {
		t.Fatal("the model was sent nothing")
	}
	out := map[string]*genai.FunctionDeclaration{}
	for _, gt := range reqs[0].Config.Tools {
		for _, d := range gt.FunctionDeclarations {
			out[d.Name] = d
		}
	}
	return out
}

type stepArgs struct {
	N int `json:"n" jsonschema:"multipleOf=5"`
}

type tagArgs struct {
	Labels map[string]string `json:"labels" jsonschema:"description=Free-form labels"`
}

// What the model is sent through ADK is Gemini's form of each tool
// (package dialect), and Warnings says what that form changed.
func TestDeclarations(t *testing.T) {
	for _, tc := range []struct {
		name       string
		jsonSchema bool
	}{{"Schema object", false}, {"JSONSchema option", true}} {
		t.Run(tc.name, func(t *testing.T) {
			reg, _ := newRegistry(t, nil, nil)
			reg.MustAdd(
				tool.New(tool.Definition{Name: "tag", Description: "Tag the build."},
					func(context.Context, tagArgs) (string, error) { return "tagged", nil }),
				tool.New(tool.Definition{Name: "ping", Description: "Ping."},
					func(context.Context, struct{}) (string, error) { return "pong", nil }),
				tool.New(tool.Definition{Name: "step", Description: "Step by n."},
					func(context.Context, stepArgs) (string, error) { return "stepped", nil }),
			)
			ts := tooladk.New(reg, &tooladk.Options[host]{JSONSchema: tc.jsonSchema})
			r := newRunner(ts)
			if _, err := r.Run(context.Background()); err != nil {
				t.Fatal(err)
			}
			decls := declarations(t, r.Model.Requests())
			if len(decls) != 5 {
				t.Fatalf("declarations %v, want delete_file, ping, step, tag, weather", keys(decls))
			}
			w := decls["weather"]
			if tc.jsonSchema {
				if w.Parameters != nil || w.ParametersJsonSchema == nil {
					t.Errorf("weather sent with Parameters %v, ParametersJsonSchema %v; want JSON Schema", w.Parameters, w.ParametersJsonSchema)
				}
			} else {
				if w.Parameters == nil || w.Parameters.Type != genai.TypeObject || w.Parameters.Properties["units"] == nil {
					t.Fatalf("weather's parameters are not Gemini's Schema object: %+v", w.Parameters)
				}
				if got := w.Parameters.Properties["units"].Enum; strings.Join(got, ",") != "metric,imperial" {
					t.Errorf("units enum %v", got)
				}
				if c := w.Parameters.Properties["city"]; c.Description != "City name" || c.MinLength == nil || *c.MinLength != 1 {
					t.Errorf("city sent as %+v", c)
				}
				contains(t, "n's description", decls["step"].Parameters.Properties["n"].Description, "multiple of 5")
				if d := decls["tag"]; d.Parameters != nil || d.ParametersJsonSchema == nil {
					t.Errorf("tag (a free-form map) sent as %+v; want parametersJsonSchema", d)
				}
			}
			if d := decls["ping"]; d.Parameters != nil {
				t.Errorf("ping (no parameters) sent with parameters %+v", d.Parameters)
			}
			var moved, lossy bool
			for _, w := range ts.Warnings() {
				moved = moved || w.Tool == "step" && w.Action == dialect.Moved && w.Keyword == "multipleOf"
				lossy = lossy || w.Tool == "tag" && w.Severity == dialect.Lossy
			}
			if !tc.jsonSchema && (!moved || !lossy) {
				t.Errorf("Warnings() = %v, want step's multipleOf moved and tag sent lossy", ts.Warnings())
			}
		})
	}
}

func keys(m map[string]*genai.FunctionDeclaration) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

type renamedArgs struct {
	DryRun bool `json:"dry-run"`
}

// A tool or parameter name Gemini refuses is sent under one it accepts,
// and the model's call under it reaches the tool by its own names.
func TestRenamed(t *testing.T) {
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(tool.New(tool.Definition{Name: "7zip", Description: "Pack."},
		func(_ context.Context, in renamedArgs) (string, error) {
			if in.DryRun {
				return "would pack", nil
			}
			return "packed", nil
		}))
	ts := tooladk.New(reg, nil)
	r := newRunner(ts)
	if _, err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	decls := declarations(t, r.Model.Requests())
	if len(decls) != 1 {
		t.Fatalf("declarations %v", keys(decls))
	}
	var sent, param string
	for name, d := range decls {
		sent = name
		for p := range d.Parameters.Properties {
			param = p
		}
	}
	if sent == "7zip" || param == "dry-run" || param == "" {
		t.Fatalf("sent %q with parameter %q; Gemini refuses both names", sent, param)
	}
	turn, err := r.Run(context.Background(), adktest.Call("c1", sent, `{"`+param+`":true}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := outputText(turn.Response("c1")); got != "would pack" {
		t.Errorf("the renamed call answered %v, want would pack", turn.Response("c1"))
	}
}

// Options.Tools offers a chosen subset (and read_output with it, where the
// registry has it); a name the registry lacks is a Severe warning.
func TestSubset(t *testing.T) {
	reg, fs := newRegistry(t, nil, &tool.RegistryOptions{Spill: tool.NewMemorySpillStore(0)})
	ts := tooladk.New(reg, &tooladk.Options[host]{Tools: []string{"weather", "nosuch"}})
	tools, err := ts.Tools(nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name())
	}
	if strings.Join(names, ",") != "read_output,weather" {
		t.Errorf("offered %v, want read_output and weather", names)
	}
	var severe bool
	for _, w := range ts.Warnings() {
		severe = severe || w.Tool == "nosuch" && w.Severity == dialect.Severe
	}
	if !severe {
		t.Errorf("Warnings() = %v, want nosuch reported", ts.Warnings())
	}
	r := newRunner(ts)
	turn, err := r.Run(context.Background(), adktest.Call("c1", "delete_file", `{"path":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	if errorText(turn.Response("c1")) == "" || len(fs.Deleted()) != 0 {
		t.Errorf("a tool left out of the subset ran: %v, deleted %v", turn.Response("c1"), fs.Deleted())
	}
}

// The toolset follows the registry: a tool added after New is offered
// from the next request on.
func TestFollowsRegistry(t *testing.T) {
	reg, _ := newRegistry(t, nil, nil)
	ts := tooladk.New(reg, nil)
	r := newRunner(ts)
	ctx := context.Background()
	if _, err := r.Run(ctx); err != nil {
		t.Fatal(err)
	}
	reg.MustAdd(tool.New(tool.Definition{Name: "later", Description: "Added later."},
		func(context.Context, struct{}) (string, error) { return "here", nil }))
	r2 := newRunner(ts)
	turn, err := r2.Run(ctx, adktest.Call("c1", "later", `{}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := outputText(turn.Response("c1")); got != "here" {
		t.Errorf("the tool added later answered %v", turn.Response("c1"))
	}
	if _, ok := declarations(t, r2.Model.Requests())["later"]; !ok {
		t.Error("the tool added later was not declared")
	}
}

// Two toolsets that offer the same name to one agent are refused with a
// message that says so, as ADK refuses two function tools of one name.
func TestDuplicateName(t *testing.T) {
	reg, _ := newRegistry(t, nil, nil)
	r := adktest.NewRunner(adktest.Config{Toolsets: []adktool.Toolset{tooladk.New(reg, nil), tooladk.New(reg, nil)}})
	_, err := r.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), `duplicate tool "delete_file"`) {
		t.Errorf("Run() error = %v, want the duplicate named", err)
	}
}
