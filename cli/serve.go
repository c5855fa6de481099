package cli

import (
	"github.com/spf13/cobra"

	"parley/server"
)

// newServeCmd runs the reference service; its flags belong to the server package.
func newServeCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:                "serve [--addr HOST:PORT] [--data DIR] [--demo] [flags]",
		Short:              "Run the reference Chat and Voice Service (see 'parley serve --help')",
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if code := server.ServeMain(cmd.Context(), args, g.stdout, g.stderr); code != 0 {
				return &codeError{code: code}
			}
			return nil
		},
	}
}

// newAdminCmd runs the reference service's back office on its database.
func newAdminCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:                "admin [--data DIR] key|points|balance|price|ledger ...",
		Short:              "Manage keys, points and the price of the reference service (see 'parley admin --help')",
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if code := server.AdminMain(cmd.Context(), args, g.stdout, g.stderr); code != 0 {
				return &codeError{code: code}
			}
			return nil
		},
	}
}
