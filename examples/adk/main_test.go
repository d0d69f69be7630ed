package main

import (
	"context"
	"os"
	"strings"
	"testing"
)

// The user confirms: the deletion runs after ADK's confirmation.
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
	//   list_notes answers: output: ["2023-todo","ideas"]
	//   read_note answers: error: Invalid arguments for read_note:
	//     - /name: must be at least 1 character long, got 0
	//     Required keys: name.
	//     Expected shape: {"name": "<string>"}
	//     Fix the arguments and call read_note again.
	//
	// model calls read_note {"name":"2023-todo"}
	//   read_note answers: output: buy milk
	//
	// model calls delete_note {"name":"2023-todo"}
	//   delete_note answers: error: The call to delete_note needs the user's approval, which has been asked for. It has not run yet.
	//
	// ADK asks the user:
	//   Allow delete_note to run? It is destructive (it may lose data).
	//
	//   Arguments: {"name":"2023-todo"}
	// user: confirms
	//   delete_note answers: output: deleted 2023-todo
	//
	// model: That is all for your notes.
	//
	// notes left: ideas
}

// The user rejects the deletion: it does not run, and the model reads why.
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
