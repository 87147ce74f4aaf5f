package bench

import "github.com/spf13/pflag"

// ReportFormats are the formats a report is written in (--format).
var ReportFormats = []string{"md", "csv", "json", "tex", "html"}

// AddReportFlags declares a report's --format (md unless format holds
// another default) and --out, the same in every command that writes a
// report (GitHub CLI's AddFormatFlags); outHelp says what --out takes (""
// : a file, standard output by default).
func AddReportFlags(f *pflag.FlagSet, format, out *string, outHelp string) {
	if *format == "" {
		*format = "md"
	}
	if outHelp == "" {
		outHelp = "output file (default stdout)"
	}
	f.StringVar(format, "format", *format, "md, csv, json, tex or html")
	f.StringVar(out, "out", *out, outHelp)
	Choices(f, "format", ReportFormats...)
}
