// Command parley is a desktop voice assistant and a command-line client for the Chat and Voice
// Service. With no arguments it opens the desktop app; with a subcommand it runs the CLI.
package main

import (
	"os"

	"parley/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
