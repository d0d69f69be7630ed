package main

// The output the README shows.
func Example() {
	main()
	// Output:
	// invalid true
	// Invalid arguments for weather:
	// - /units: must be one of "metric", "imperial", got string "kelvin"
	// Required keys: city.
	// Expected shape: {"city": "<string>", "units": "metric"}
	// Fix the arguments and call weather again.
}
