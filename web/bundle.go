package web

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// BundleResult says what Bundle wrote.
type BundleResult struct {
	Pages   int // HTML pages written
	Skipped int // links to pages left out (other runs, searches, sorts, over the cap)
}

// linkAttr finds the viewer's own links in a page: href and src values that
// start with "/".
var linkAttr = regexp.MustCompile(`(href|src)="(/[^"]*)"`)

// getForm is a search, filter or page-jump form: from the disk its
// query goes nowhere (a bundle holds no searched or filtered page), so a
// bundle says so in its place.
var getForm = regexp.MustCompile(`(?s)<form[^>]*method="get"[^>]*>.*?</form>`)

// leftOut are the query parameters whose pages a bundle leaves out: the
// same rows again, sorted, searched or exported.
var leftOut = []string{"sort", "desc", "q", "export", "all"}

// Bundle writes the viewer's pages of one run into dir as static files
// that need no server and no script (`fallacylab view --bundle DIR --run
// N`, as `inspect view bundle` does): the run page as index.html, every
// page it leads to under the run (lists page by page, records, the Task's
// own pages, each call's transcript) and the style sheet, every link
// rewritten to its file. Links to what a bundle cannot hold (other runs,
// searches, sorts, exports) lead to a page that says so. At most max pages
// are written (0: 20,000). progress, when not nil, hears every 500 pages
// how many are rendered and how many more are found so far, and once all
// are (0 more), before they are written.
func (s *Server) Bundle(ctx context.Context, dir string, run int64, max int, progress func(rendered, left int)) (BundleResult, error) {
	if max <= 0 {
		max = 20000
	}
	var res BundleResult
	h := s.Handler()
	root := fmt.Sprintf("/runs/%d", run)
	inRun := func(u *url.URL) bool {
		if u.Path == "/static/app.css" {
			return true
		}
		q := u.Query()
		for _, k := range leftOut {
			if q.Has(k) {
				return false
			}
		}
		if strings.HasPrefix(u.Path, "/calls/") {
			return q.Get("run") == fmt.Sprint(run)
		}
		return u.Path == root || strings.HasPrefix(u.Path, root+"/")
	}
	files := map[string]string{} // link (path?query) → file in dir
	fileOf := func(link string) string {
		if f, ok := files[link]; ok {
			return f
		}
		u, _ := url.Parse(link)
		name := strings.Trim(u.Path, "/")
		if link == root {
			name = "index"
		}
		if u.RawQuery != "" {
			keys := make([]string, 0)
			for k, vs := range u.Query() {
				for _, v := range vs {
					keys = append(keys, k+"-"+v)
				}
			}
			sort.Strings(keys)
			name += "__" + strings.Join(keys, "_")
		}
		name = safeName(name)
		if !strings.HasSuffix(name, ".css") {
			name += ".html"
		}
		files[link] = name
		return name
	}
	queue := []string{root}
	seen := map[string]bool{root: true}
	pages := map[string][]byte{}
	for len(queue) > 0 {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		link := queue[0]
		queue = queue[1:]
		if progress != nil && len(pages)%500 == 0 && len(pages) > 0 {
			progress(len(pages), len(queue)+1)
		}
		rec := httptest.NewRecorder()
		req := httptest.NewRequestWithContext(ctx, http.MethodGet, link, nil)
		req.Host = "127.0.0.1"
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			if link == root {
				return res, fmt.Errorf("bundle run %d: its page answers %d: %s", run, rec.Code, strings.TrimSpace(stripTags(rec.Body.String())))
			}
			res.Skipped++
			delete(files, link)
			continue
		}
		body := rec.Body.Bytes()
		pages[link] = body
		if !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") {
			continue
		}
		for _, m := range linkAttr.FindAllSubmatch(body, -1) {
			l := html.UnescapeString(string(m[2]))
			u, err := url.Parse(l)
			if err != nil || seen[l] {
				continue
			}
			seen[l] = true
			if !inRun(u) || len(seen) > max {
				res.Skipped++
				continue
			}
			fileOf(l)
			queue = append(queue, l)
		}
	}
	if progress != nil {
		progress(len(pages), 0)
	}
	pagesWritten, err := writeBundle(dir, run, pages, files, fileOf)
	res.Pages = pagesWritten
	return res, err
}

// writeBundle writes a bundle's rendered pages into dir, whole or not at
// all, each link rewritten to its file (files: link → file; fileOf names
// a link's), and says how many HTML pages it wrote.
func writeBundle(dir string, run int64, pages map[string][]byte, files map[string]string, fileOf func(string) string) (int, error) {
	written := 0
	// Written whole or not at all: into a new folder beside dir, renamed
	// to dir at the end; a dir that holds files is never written into.
	if fi, err := os.Lstat(dir); err == nil && !fi.IsDir() {
		// A file (or a link) by that name is never replaced by the bundle.
		return 0, fmt.Errorf("bundle: %s is a file, not a folder: name a new folder", dir)
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return 0, fmt.Errorf("bundle: %s is not empty: name a new folder", dir)
	}
	if err := os.MkdirAll(filepath.Dir(filepath.Clean(dir)), 0o755); err != nil {
		return 0, fmt.Errorf("bundle: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(filepath.Clean(dir)), "."+filepath.Base(dir)+".partial-")
	if err != nil {
		return 0, fmt.Errorf("bundle: %w", err)
	}
	done := false
	defer func() {
		if !done {
			os.RemoveAll(tmp)
		}
	}()
	write := func(name string, b []byte) error {
		p := filepath.Join(tmp, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		return os.WriteFile(p, b, 0o644)
	}
	for link, body := range pages {
		name := fileOf(link)
		if strings.HasSuffix(name, ".html") {
			body = linkAttr.ReplaceAllFunc(body, func(m []byte) []byte {
				sub := linkAttr.FindSubmatch(m)
				target := "not-in-bundle.html"
				if f, ok := files[html.UnescapeString(string(sub[2]))]; ok {
					target = f
				}
				rel, err := filepath.Rel(path.Dir(name), target)
				if err != nil {
					rel = target
				}
				return []byte(fmt.Sprintf(`%s="%s"`, sub[1], html.EscapeString(filepath.ToSlash(rel))))
			})
			body = getForm.ReplaceAll(body, []byte(`<p class="note">Search, filters and the page jump need the live viewer: <code>fallacylab view</code>.</p>`))
			body = withCSP(body)
			written++
		}
		if err := write(name, body); err != nil {
			return 0, fmt.Errorf("bundle: %w", err)
		}
	}
	missing := fmt.Sprintf(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>not in this bundle — fallacylab</title><link rel="stylesheet" href="static/app.css"></head>
<body><h1>Not in this bundle</h1><p>This bundle holds run %d's pages as static files. Other runs, searches, sorts and exports need the live viewer: <code>fallacylab view</code>.</p><p><a href="index.html">← run %d</a></p></body></html>
`, run, run)
	if err := write("not-in-bundle.html", withCSP([]byte(missing))); err != nil {
		return 0, fmt.Errorf("bundle: %w", err)
	}
	os.Remove(dir) // an empty folder named for it
	if err := os.Chmod(tmp, 0o755); err != nil {
		return 0, fmt.Errorf("bundle: %w", err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return 0, fmt.Errorf("bundle: %w", err)
	}
	done = true
	return written, nil
}

// BundleCSP is the Content-Security-Policy a bundle's pages carry
// themselves, in a <meta> element: opened from the disk they have no server
// to send the viewer's (CSP): no script at all, styles and images only from
// the bundle. (frame-ancestors has no effect in a <meta>, so it is left out.)
const BundleCSP = "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'"

// withCSP puts BundleCSP first in a page's head.
func withCSP(page []byte) []byte {
	meta := []byte(`<meta http-equiv="Content-Security-Policy" content="` + BundleCSP + `">`)
	i := bytes.Index(page, []byte("<head>"))
	if i < 0 {
		return page
	}
	i += len("<head>")
	return append(append(append([]byte(nil), page[:i]...), meta...), page[i:]...)
}

// unsafeChars are the characters a bundle's file names do not hold.
var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9._/-]+`)

// safeName is a link's file name: path separators kept, anything else
// outside [A-Za-z0-9._-] written as "_", never a name that climbs out of
// the bundle.
func safeName(s string) string {
	s = unsafeChars.ReplaceAllString(s, "_")
	var parts []string
	for _, p := range strings.Split(s, "/") {
		if p == "" || p == "." || p == ".." {
			p = "_"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, "/")
}

// stripTags is an error page's text.
func stripTags(s string) string { return regexp.MustCompile(`<[^>]*>`).ReplaceAllString(s, " ") }
