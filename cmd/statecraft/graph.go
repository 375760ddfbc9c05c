package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/statecraft/statecraft/fsm"
)

// graphCmd is `statecraft graph FILE --format mermaid|dot`.
func graphCmd(stdout, stderr io.Writer) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "graph FILE",
		Short: "Print each machine as a Mermaid state diagram or a Graphviz digraph",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var write func(io.Writer, *fsm.Machine) error
			switch format {
			case "mermaid":
				write = fsm.WriteMermaid
			case "dot":
				write = fsm.WriteDOT
			default:
				return fmt.Errorf("--format %q: want mermaid or dot", format)
			}
			ms, _, diags := loadMachines(args)
			if diags.HasErrors() {
				printDiags(stderr, diags)
				return ExitError{1}
			}
			for i, m := range ms {
				if i > 0 {
					fmt.Fprintln(stdout)
				}
				if err := write(stdout, m); err != nil {
					return err
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "mermaid", "output format: mermaid or dot")
	return cmd
}
