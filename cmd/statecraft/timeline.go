package main

import (
	"fmt"
	"html"
	"io"
	"time"

	"github.com/statecraft/statecraft/scenario"
)

// writeTimeline draws each object's states over virtual time as SVG: one
// row per object (in the order objects first appear), one coloured band
// per stretch of time in a state, labelled with the state, and a time axis.
// It is deterministic.
func writeTimeline(w io.Writer, lines []scenario.Line, runFor time.Duration) {
	type span struct {
		state      string
		start, end time.Duration
	}
	var order []string
	rows := map[string][]span{}
	for _, l := range lines {
		if l.Kind != "transition" || l.To == "" {
			continue
		}
		spans, seen := rows[l.Object]
		if !seen {
			order = append(order, l.Object)
			spans = []span{{state: l.From, start: l.At}}
		}
		if last := &spans[len(spans)-1]; last.state != l.To {
			last.end = l.At
			spans = append(spans, span{state: l.To, start: l.At})
		}
		rows[l.Object] = spans
	}
	if runFor <= 0 {
		runFor = time.Hour
	}
	const (
		labelW = 330
		width  = 1000
		rowH   = 26
		top    = 30
	)
	// Colours go to states in the order they first appear: distinct for the
	// first ten, and the same on every run.
	colours := map[string]string{}
	for _, obj := range order {
		for _, sp := range rows[obj] {
			if _, ok := colours[sp.state]; !ok {
				colours[sp.state] = palette[len(colours)%len(palette)]
			}
		}
	}
	x := func(d time.Duration) float64 { return labelW + float64(width-labelW-10)*float64(d)/float64(runFor) }
	height := top + rowH*len(order) + 30
	fmt.Fprintf(w, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" font-size=\"11\">\n", width, height)
	fmt.Fprintf(w, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n")
	for i := 0; i <= 5; i++ {
		d := runFor * time.Duration(i) / 5
		anchor := "middle"
		if i == 5 {
			anchor = "end"
		}
		fmt.Fprintf(w, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>\n", x(d), top-5, x(d), height-25)
		fmt.Fprintf(w, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"%s\" fill=\"#555\">%s</text>\n", x(d), height-10, anchor, scenario.Stamp(d))
	}
	for i, obj := range order {
		y := top + i*rowH
		fmt.Fprintf(w, "<text x=\"5\" y=\"%d\">%s</text>\n", y+16, html.EscapeString(obj))
		for _, sp := range rows[obj] {
			end := sp.end
			if end == 0 || end > runFor {
				end = runFor
			}
			x0, x1 := x(sp.start), x(end)
			if x1-x0 < 1 {
				x1 = x0 + 1
			}
			fmt.Fprintf(w, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"><title>%s %s–%s</title></rect>\n",
				x0, y+3, x1-x0, rowH-6, colours[sp.state], html.EscapeString(sp.state), scenario.Stamp(sp.start), scenario.Stamp(end))
			if x1-x0 > 7*float64(len(sp.state)) {
				fmt.Fprintf(w, "<text x=\"%.1f\" y=\"%d\" fill=\"#111\">%s</text>\n", x0+3, y+16, html.EscapeString(sp.state))
			}
		}
	}
	fmt.Fprintln(w, "</svg>")
}

var palette = []string{"#a6cee3", "#b2df8a", "#fb9a99", "#fdbf6f", "#cab2d6", "#ffff99", "#8dd3c7", "#bebada", "#fccde5", "#d9d9d9"}
