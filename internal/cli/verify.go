package cli

import (
	"io"

	"github.com/spf13/cobra"
)

func verifyCmd(stdout, stderr io.Writer) *cobra.Command {
	return &cobra.Command{Use: "verify FILE", Hidden: true}
}
