package main

import (
	"fmt"
	"os"
)

// runTool runs an offline subcommand; it returns the exit code.
func runTool(name string, args []string) int {
	fmt.Fprintf(os.Stderr, "embedded-store: unknown command %q\n", name)
	return 2
}
