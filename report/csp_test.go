package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

// TestNothingStyledInline: an HTML report styles nothing inline (a
// Content-Security-Policy that allows styles only from the style sheet, as
// the viewer's does, would drop it: bars 0 px wide), and every bar's width
// class is one the style sheet defines, with the width of its proportion.
func TestNothingStyledInline(t *testing.T) {
	var buf bytes.Buffer
	if err := Render(&buf, sample(), HTML); err != nil {
		t.Fatal(err)
	}
	html := buf.String()
	if strings.Contains(html, " style=") {
		i := strings.Index(html, " style=")
		t.Fatalf("an inline style: %.120s", html[i:])
	}
	bars := regexp.MustCompile(`<td class="n">([0-9.]+)[^<]*<span class="b (bw\d+)"></span>`).FindAllStringSubmatch(html, -1)
	if len(bars) < 3 {
		t.Fatalf("%d bars in the sample report, want its proportions'", len(bars))
	}
	for _, b := range bars {
		if !strings.Contains(CSS, "."+b[2]+"{") {
			t.Fatalf("bar class %s is not in the style sheet", b[2])
		}
		if want := map[string]string{"25.0": "bw25", "50.0": "bw50", "0.0": "bw0"}[b[1]]; want != "" && b[2] != want {
			t.Fatalf("a %s %% bar has class %s, want %s", b[1], b[2], want)
		}
	}
	if !strings.Contains(CSS, ".bw25{width:25%}") || !strings.Contains(CSS, ".bw100{width:100%}") || !strings.Contains(CSS, ".bw0{width:0%}") {
		t.Fatal("the style sheet lacks the bars' width classes")
	}
}
