package cli

import "github.com/spf13/cobra"

// commands lists every subcommand of parley.
func commands(g *globals) []*cobra.Command {
	return []*cobra.Command{
		newLoginCmd(g),
		newLogoutCmd(g),
		newStatusCmd(g),
		newChatCmd(g),
		newConversationsCmd(g),
		newHistoryCmd(g),
		newConfigCmd(g),
		newDeleteCmd(g),
		newTranscribeCmd(g),
		newSpeakCmd(g),
		newVoicesCmd(g),
		newPlayCmd(g),
		newDevicesCmd(g),
		newRecordCmd(g),
		newCancelEchoCmd(g),
		newVoiceCmd(g),
		newServeCmd(g),
		newAdminCmd(g),
	}
}
