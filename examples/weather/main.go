// Command weather is the README's smallest complete program: one typed
// tool, a registry, and a call whose arguments the schema refuses, which
// comes back as a hint the model can act on.
package main

import (
	"context"
	"fmt"

	"github.com/toolbelt-go/tool"
)

type WeatherArgs struct {
	City  string `json:"city" jsonschema:"description=City name,minLength=1"`
	Units string `json:"units,omitempty" jsonschema:"enum=metric,enum=imperial,default=metric"`
}

func main() {
	weather := tool.New(tool.Definition{Name: "weather", Description: "Current weather for a city."},
		func(ctx context.Context, in WeatherArgs) (string, error) {
			return "21°C and sunny in " + in.City, nil
		})

	reg := tool.NewRegistry[struct{}](nil)
	if err := reg.Add(weather); err != nil {
		panic(err)
	}
	// reg.Definitions() is what you send to the model.

	// What the model asked for, as your provider SDK hands it to you:
	res := reg.Call(context.Background(), struct{}{}, tool.Request{
		ID: "call_1", Name: "weather", Args: []byte(`{"city":"Lisbon","units":"kelvin"}`),
	})
	fmt.Println(res.Status, res.IsError)
	fmt.Println(res.Text()) // what you send back to the model
}
