package tool_test

import (
	"context"
	"fmt"

	"github.com/toolbelt-go/tool"
)

// A provider's retry sends a call that already ran: with records kept,
// it is answered from the record of the first, and the card is charged
// once.
func ExampleNewMemoryRecordStore() {
	charges := 0
	reg := tool.NewRegistry[struct{}](&tool.RegistryOptions{Records: tool.NewMemoryRecordStore(0)})
	reg.MustAdd(tool.New(tool.Definition{Name: "charge", Description: "Charges the customer's card.", Safety: tool.SafetyMutating},
		func(_ context.Context, in struct {
			Cents int `json:"cents"`
		}) (string, error) {
			charges++
			return fmt.Sprintf("charged %d cents", in.Cents), nil
		}))
	call := func(args string) *tool.Result {
		return reg.Call(context.Background(), struct{}{}, tool.Request{ID: "call_42", Name: "charge", Args: []byte(args), Session: "conv-1"})
	}
	first, retry := call(`{"cents":500}`), call(`{"cents": 500}`)
	fmt.Println(first.Status, first.Text(), "| from record:", first.FromRecord)
	fmt.Println(retry.Status, retry.Text(), "| from record:", retry.FromRecord)
	fmt.Println("charges:", charges)
	other := call(`{"cents":900}`)
	fmt.Println(other.Status, "-", other.Text())
	// Output:
	// ok charged 500 cents | from record: false
	// ok charged 500 cents | from record: true
	// charges: 1
	// conflict - The call to charge did not run: a call with the same ID was already made in this conversation with other arguments. Make it again as a new call.
}
