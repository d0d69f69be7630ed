package main

import (
	"context"
	"os"
	"strings"
	"testing"
)

// The user allows the deletion: it runs when the run is resumed with the
// answer.
func Example() {
	if err := run(context.Background(), os.Stdout, true); err != nil {
		panic(err)
	}
	// Output:
	// user: tidy up my notes
	//
	// model calls list_notes {}
	//
	// model calls read_note {"name":""}
	//   list_notes answers: ["2023-todo","ideas"]
	//   read_note answers: Invalid arguments for read_note:
	//     - /name: must be at least 1 character long, got 0
	//     Required keys: name.
	//     Expected shape: {"name": "<string>"}
	//     Fix the arguments and call read_note again.
	//
	// model calls read_note {"name":"2023-todo"}
	//   read_note answers: buy milk
	//
	// model calls delete_note {"name":"2023-todo"}
	//
	// Eino asks the user: allow delete_note to run {"name":"2023-todo"}? It is destructive.
	// user: allows it
	//   delete_note answers: deleted 2023-todo
	//
	// model: That is all for your notes.
	//
	// notes left: ideas
}

// The user denies the deletion: it does not run, and the model reads why.
func TestDeny(t *testing.T) {
	var out strings.Builder
	if err := run(context.Background(), &out, false); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"the user said: keep it, I still need milk. It did not run.", "notes left: 2023-todo, ideas"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
