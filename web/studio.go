package web

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/study"
)

// annotatorCookie holds an annotator's token after they open their link.
const annotatorCookie = "fallacylab_annotator"

// studioCSP is the policy of the annotation pages: the viewer's, plus the
// one same-origin script that gives the keyboard shortcuts.
const studioCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// studies lists every study in the store with each annotator's progress.
func (s *Server) studies(w http.ResponseWriter, r *http.Request) {
	list, err := s.st.Studies(r.Context(), 0)
	if err != nil {
		s.fail(w, 500, err)
		return
	}
	type row struct {
		study.Study
		Progress []string
	}
	var rows []row
	for _, st := range list {
		anns, err := s.st.Annotations(r.Context(), st.ID)
		if err != nil {
			s.fail(w, 500, err)
			return
		}
		done := study.Done(anns)
		rw := row{Study: st}
		for _, a := range st.Annotators {
			rw.Progress = append(rw.Progress, fmt.Sprintf("%s %d / %d", a.Name, done[a.Name], len(a.Order)))
		}
		rows = append(rows, rw)
	}
	s.render(w, "studies.html", map[string]any{"Studies": rows})
}

// studyReport is a study's report in the viewer, as `study report` makes it.
func (s *Server) studyReport(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("sid"), 10, 64)
	if err != nil {
		s.fail(w, 400, fmt.Errorf("study id %q is not a number", r.PathValue("sid")))
		return
	}
	st, ok, err := s.st.Study(r.Context(), id)
	if err != nil || !ok {
		s.fail(w, 404, fmt.Errorf("no study %d in %s", id, s.st.Path()))
		return
	}
	rep, err := study.Report(r.Context(), s.st, st, study.AnalyzeOptions{Seed: st.Seed})
	if err != nil {
		s.fail(w, 500, err)
		return
	}
	sections, err := report.SectionsHTML(rep, nil)
	if err != nil {
		s.fail(w, 500, err)
		return
	}
	s.render(w, "study.html", map[string]any{"Study": st, "Report": rep, "Sections": sections})
}

// queue is the signed-in annotator's study and queue, from their cookie.
func (s *Server) queue(w http.ResponseWriter, r *http.Request) (study.Study, study.Annotator, bool) {
	c, err := r.Cookie(annotatorCookie)
	if err == nil {
		if st, a, ok := s.byToken(r, c.Value); ok {
			return st, a, true
		}
	}
	s.fail(w, 401, fmt.Errorf("open the private link you were given (fallacylab study links) to reach your queue"))
	return study.Study{}, study.Annotator{}, false
}

func (s *Server) byToken(r *http.Request, tok string) (study.Study, study.Annotator, bool) {
	list, err := s.st.Studies(r.Context(), 0)
	if err != nil || tok == "" {
		return study.Study{}, study.Annotator{}, false
	}
	for _, st := range list {
		for _, a := range st.Annotators {
			if a.ReplacedBy == "" && equal(a.Token, tok) {
				return st, a, true
			}
		}
	}
	return study.Study{}, study.Annotator{}, false
}

// signIn is an annotator's private link: /annotate/login/TOKEN keeps the
// token in a cookie and sends them on without it in the address bar.
func (s *Server) signIn(w http.ResponseWriter, r *http.Request) {
	tok := r.PathValue("token")
	st, a, ok := s.byToken(r, tok)
	if !ok {
		s.fail(w, 401, fmt.Errorf("this link is not (or no longer) an annotator's link"))
		return
	}
	// The place is in use: the study's shared link never gives it to a
	// participant (they would write into one queue).
	if !a.Private && a.Participant == "" && !s.st.ReadOnly() {
		if err := s.markPrivate(r, st, a.Name); err != nil {
			s.fail(w, 500, fmt.Errorf("your link could not be kept as in use: open it again: %w", err))
			return
		}
	}
	http.SetCookie(w, &http.Cookie{Name: annotatorCookie, Value: tok, Path: "/annotate", HttpOnly: true, SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, "/annotate", http.StatusSeeOther)
}

// csrf is the form token of an annotator's answers: only a page the
// viewer served them carries it.
func csrf(tok string, studyID int64) string {
	m := hmac.New(sha256.New, []byte(tok))
	fmt.Fprintf(m, "csrf:%d", studyID)
	return hex.EncodeToString(m.Sum(nil))
}

// resume sends an annotator to the first item of their queue they have
// neither answered nor skipped (or to the end).
func (s *Server) resume(w http.ResponseWriter, r *http.Request) {
	st, a, ok := s.queue(w, r)
	if !ok {
		return
	}
	mine, err := s.mine(r, st, a)
	if err != nil {
		s.fail(w, 500, err)
		return
	}
	if hasCodebook(st) && len(mine) == 0 && !seenCodebook(r, st.ID) {
		http.Redirect(w, r, "/annotate/codebook", http.StatusSeeOther)
		return
	}
	for i, k := range a.Order {
		if _, done := mine[k]; !done {
			http.Redirect(w, r, fmt.Sprintf("/annotate/%d", i+1), http.StatusSeeOther)
			return
		}
	}
	http.Redirect(w, r, "/annotate/done", http.StatusSeeOther)
}

// mine is an annotator's answers, by item.
func (s *Server) mine(r *http.Request, st study.Study, a study.Annotator) (map[string]study.Annotation, error) {
	anns, err := s.st.Annotations(r.Context(), st.ID)
	if err != nil {
		return nil, err
	}
	out := map[string]study.Annotation{}
	for _, x := range anns {
		if x.Annotator == a.Name {
			out[x.Item] = x
		}
	}
	return out, nil
}

// choiceView is one radio button (a check box for a multi question) of
// the annotation page.
type choiceView struct {
	study.Choice
	Digit   int
	Checked bool
	Input   string // "radio" or "checkbox"
}

// choiceViews are a question's choices as a page offers them, those of
// answer checked.
func choiceViews(q study.Question, answer string) []choiceView {
	var out []choiceView
	for i, c := range q.Choices {
		cv := choiceView{Choice: c, Digit: i + 1, Checked: answer == c.Key, Input: "radio"}
		if q.Type == study.Multi {
			cv.Checked, cv.Input = slices.Contains(q.Picks(answer), c.Key), "checkbox"
		}
		out = append(out, cv)
	}
	return out
}

// formAnswer is a question's answer as a form sent it: the text or choice
// given, or a multi question's boxes ticked, joined as the study stores
// them ("" : none).
func formAnswer(q study.Question, form url.Values, name string) string {
	if q.Type != study.Multi {
		return strings.TrimSpace(form.Get(name))
	}
	var picks []string
	for _, v := range form[name] {
		if v = strings.TrimSpace(v); v != "" {
			picks = append(picks, v)
		}
	}
	if len(picks) == 0 {
		return ""
	}
	if j := q.Joined(picks); j != "" {
		return j
	}
	return strings.Join(picks, ",") // not its choices: refused by Accepts, kept in the draft
}

type questionView struct {
	ID, Text string
	Choices  []choiceView
	// Free text: a text box (Value: what was written); Note says when it
	// may be left open.
	Free  bool
	Value string
	Note  string
}

// viewQuestion is a question as a page asks it, with the answer given.
func viewQuestion(st study.Study, q study.Question, answer string) questionView {
	qv := questionView{ID: q.ID, Text: q.Text, Free: q.Type == study.FreeText, Value: answer, Choices: choiceViews(q, answer)}
	switch {
	case q.When != nil:
		for _, o := range st.Questions {
			if o.ID == q.When.Question {
				qv.Note = fmt.Sprintf("only if “%s” is answered “%s”", o.Text, choiceLabel(o, q.When.Is))
			}
		}
	case q.Optional:
		qv.Note = "optional"
	case q.Type == study.Multi:
		qv.Note = "tick every one that applies"
	}
	return qv
}

// annotate is one item of the annotator's queue: the text and the
// questions, and nothing of what the study hides (model, frame, condition,
// judges' labels, the detector's label, other annotators' answers).
func (s *Server) annotate(w http.ResponseWriter, r *http.Request) {
	st, a, ok := s.queue(w, r)
	if !ok {
		return
	}
	if r.PathValue("n") == "done" {
		s.renderStudio(w, "annotate_done.html", map[string]any{"Study": st, "Annotator": a.Name, "Total": len(a.Order)})
		return
	}
	n, err := strconv.Atoi(r.PathValue("n"))
	if err != nil || n < 1 || n > len(a.Order) {
		s.fail(w, 404, fmt.Errorf("your queue has items 1 to %d", len(a.Order)))
		return
	}
	s.annotatePage(w, r, st, a, n, "", http.StatusOK)
}

// annotatePage renders item n of a's queue: their draft of it where they
// left one (answers given but not saved), else their saved answer; problem
// says why a save was refused, in the study's words.
func (s *Server) annotatePage(w http.ResponseWriter, r *http.Request, st study.Study, a study.Annotator, n int, problem string, status int) {
	it, _ := st.Item(a.Order[n-1])
	mine, err := s.mine(r, st, a)
	if err != nil {
		s.fail(w, 500, err)
		return
	}
	prev := mine[it.Key]
	shown, draft := prev, false
	if d, ok := s.draft(st.ID, a.Name, it.Key); ok {
		shown, draft = d, true
	}
	var qs []questionView
	for _, q := range st.Questions {
		qs = append(qs, viewQuestion(st, q, shown.Answers[q.ID]))
	}
	answered := 0
	for _, k := range a.Order {
		if x, ok := mine[k]; ok && !x.Skipped {
			answered++
		}
	}
	s.renderStudioStatus(w, status, "annotate.html", map[string]any{"Study": st.Name, "N": n, "Total": len(a.Order), "Answered": answered,
		"Context": it.Context, "Text": it.Text, "Questions": qs, "Comment": shown.Comment, "CSRF": csrf(a.Token, st.ID),
		"Prev": n - 1, "Next": n + 1, "Last": n == len(a.Order), "Saved": prev.Answers != nil && !prev.Skipped, "Skipped": prev.Skipped,
		"Draft": draft, "Problem": problem})
}

// unanswered says which of the study's questions a lacks a valid answer
// to, by their texts (never by the item, whose key holds what the study
// hides), or "" when it lacks none.
func unanswered(st study.Study, a study.Annotation) string {
	var missing []string
	for _, q := range st.Questions {
		if v := a.Answers[q.ID]; q.Needed(a.Answers) && !q.Accepts(v) {
			missing = append(missing, "“"+q.Text+"”")
		}
	}
	if len(missing) == 0 {
		return ""
	}
	return fmt.Sprintf("Not saved: %s %s no answer. Your answers so far are kept here as a draft: answer every question and save, or skip the item.",
		strings.Join(missing, ", "), map[bool]string{true: "has", false: "have"}[len(missing) == 1])
}

// draftKey names an annotator's draft of one item.
type draftKey struct {
	study     int64
	annotator string
	item      string
}

// A draft is what an annotator answered of an item without saving it (a
// save with a question left open, or going back from a half-answered
// item): kept in the viewer's memory, shown when they return to the item,
// dropped when they save or skip it. It is not an answer: the study and
// its report never see it.
func (s *Server) keepDraft(studyID int64, a study.Annotation) {
	s.draftsMu.Lock()
	defer s.draftsMu.Unlock()
	if s.drafts == nil {
		s.drafts = map[draftKey]study.Annotation{}
	}
	s.drafts[draftKey{studyID, a.Annotator, a.Item}] = a
}

func (s *Server) draft(studyID int64, annotator, item string) (study.Annotation, bool) {
	s.draftsMu.Lock()
	defer s.draftsMu.Unlock()
	d, ok := s.drafts[draftKey{studyID, annotator, item}]
	return d, ok
}

func (s *Server) dropDraft(studyID int64, annotator, item string) {
	s.draftsMu.Lock()
	defer s.draftsMu.Unlock()
	delete(s.drafts, draftKey{studyID, annotator, item})
}

// save stores the annotator's answer to item n (or that they skipped it)
// and sends them to the next.
func (s *Server) save(w http.ResponseWriter, r *http.Request) {
	st, a, ok := s.queue(w, r)
	if !ok {
		return
	}
	if err := r.ParseForm(); err != nil {
		s.fail(w, 400, err)
		return
	}
	if !hmac.Equal([]byte(r.PostForm.Get("csrf")), []byte(csrf(a.Token, st.ID))) {
		s.fail(w, 403, fmt.Errorf("this form did not come from your annotation page: reload it and answer again"))
		return
	}
	if s.st.ReadOnly() {
		s.fail(w, 503, fmt.Errorf("the viewer opened %s read-only: answers cannot be saved", s.st.Path()))
		return
	}
	n, err := strconv.Atoi(r.PathValue("n"))
	if err != nil || n < 1 || n > len(a.Order) {
		s.fail(w, 404, fmt.Errorf("your queue has items 1 to %d", len(a.Order)))
		return
	}
	ann := study.Annotation{StudyID: st.ID, Annotator: a.Name, Item: a.Order[n-1], Answers: map[string]string{},
		Comment: strings.TrimSpace(r.PostForm.Get("comment")), Skipped: r.PostForm.Get("action") == "skip", At: time.Now().UTC()}
	if !ann.Skipped {
		for _, q := range st.Questions {
			if v := formAnswer(q, r.PostForm, "q_"+q.ID); v != "" {
				ann.Answers[q.ID] = v
			}
		}
	}
	back := r.PostForm.Get("action") == "prev" && n > 1
	if back && len(ann.Answers) == 0 && ann.Comment == "" {
		http.Redirect(w, r, fmt.Sprintf("/annotate/%d", n-1), http.StatusSeeOther) // nothing to save
		return
	}
	if problem := unanswered(st, ann); problem != "" && !ann.Skipped {
		// Nothing is stored and nothing is lost: the answers given are
		// kept as a draft, and the page says what is missing in the
		// study's words — never the item's key, which holds what the
		// study hides.
		s.keepDraft(st.ID, ann)
		if back {
			http.Redirect(w, r, fmt.Sprintf("/annotate/%d", n-1), http.StatusSeeOther)
			return
		}
		s.annotatePage(w, r, st, a, n, problem, http.StatusUnprocessableEntity)
		return
	}
	if err := st.Validate(ann); err != nil {
		// Not the annotator's doing (their queue changed under them): said
		// without the item.
		s.keepDraft(st.ID, ann)
		s.fail(w, 409, fmt.Errorf("item %d of your queue cannot take this answer now (the study changed): reload it", n))
		return
	}
	if err := s.st.PutAnnotations(r.Context(), []study.Annotation{ann}); err != nil {
		s.keepDraft(st.ID, ann)
		s.fail(w, 500, fmt.Errorf("your answer was not saved (it is kept as a draft of item %d: reload that item to see it): %w", n, err))
		return
	}
	s.dropDraft(st.ID, ann.Annotator, ann.Item)
	next := fmt.Sprintf("/annotate/%d", n+1)
	if n == len(a.Order) {
		next = "/annotate"
	}
	if r.PostForm.Get("action") == "prev" && n > 1 {
		next = fmt.Sprintf("/annotate/%d", n-1)
	}
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// renderStudio renders an annotation page under the studio's policy.
func (s *Server) renderStudio(w http.ResponseWriter, name string, data any) {
	s.renderStudioStatus(w, http.StatusOK, name, data)
}

// renderStudioStatus renders an annotation page with its status (a page
// shown again with what a save lacked is 422).
func (s *Server) renderStudioStatus(w http.ResponseWriter, status int, name string, data any) {
	w.Header().Set("Content-Security-Policy", studioCSP)
	if status == http.StatusOK {
		s.render(w, name, data)
		return
	}
	var b bytes.Buffer
	if err := s.tmpl.ExecuteTemplate(&b, name, data); err != nil {
		s.fail(w, 500, fmt.Errorf("render: %w", err))
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(b.Bytes())
}

// studioJS is the annotation page's keyboard: a digit picks that choice of
// the first unanswered question (or of the one holding the focus), Enter
// saves and goes on, s skips, ← goes back.
const studioJS = `document.documentElement.dataset.keys = 'ready';
document.addEventListener('submit', function (e) {
  // One answer per press: a second submit of the same page is dropped.
  if (e.target.dataset.sent) { e.preventDefault(); return; }
  e.target.dataset.sent = '1';
});
document.addEventListener('keydown', function (e) {
  if (e.target && (e.target.tagName === 'TEXTAREA')) { if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); document.getElementById('save').click(); } return; }
  var form = document.getElementById('annotate'); if (!form) return;
  if (e.key >= '1' && e.key <= '9') {
    var sets = form.querySelectorAll('fieldset.q'), target = null;
    var focused = document.activeElement && document.activeElement.closest ? document.activeElement.closest('fieldset.q') : null;
    if (focused) target = focused;
    for (var i = 0; !target && i < sets.length; i++) { if (!sets[i].querySelector('input:checked')) target = sets[i]; }
    if (!target) target = sets[sets.length - 1];
    var radio = target.querySelector('input[data-digit="' + e.key + '"]');
    if (radio) { radio.checked = radio.type === 'checkbox' ? !radio.checked : true; radio.focus(); e.preventDefault(); }
    // A multi question keeps the focus: the next digit ticks another of
    // its boxes (Tab leaves it). A single choice moves on.
    if (radio && radio.type === 'checkbox') return;
    var nextSet = null; for (var j = 0; j < sets.length; j++) { if (sets[j] === target && j + 1 < sets.length) nextSet = sets[j + 1]; }
    if (nextSet && !nextSet.querySelector('input:checked')) { var first = nextSet.querySelector('input'); if (first) first.focus(); }
  } else if (e.key === 'Enter') {
    // In the form the browser submits by itself (save is the default
    // button); elsewhere on the page, press save.
    if (!form.contains(document.activeElement)) { e.preventDefault(); document.getElementById('save').click(); }
  } else if (e.key === 's') { e.preventDefault(); document.getElementById('skip').click();
  } else if (e.key === 'ArrowLeft') {
    // On a focused choice, the arrows move within its question, as the
    // browser does; elsewhere, ← goes to the previous item.
    var ae = document.activeElement; if (ae && ae.tagName === 'INPUT') return;
    var p = document.getElementById('prev'); if (p) { e.preventDefault(); p.click(); }
  }
});
`

// StudyLink is the private link of an annotator's queue on a viewer
// served at base (e.g. http://127.0.0.1:7411).
func StudyLink(base, token string) string {
	return strings.TrimSuffix(base, "/") + "/annotate/login/" + url.PathEscape(token)
}

// markPrivate marks an annotator's place as used through its private link,
// with a compare-and-swap on the study (read again when it changed).
func (s *Server) markPrivate(r *http.Request, st study.Study, name string) error {
	for range 20 {
		prev := cloneStudy(st)
		for i := range st.Annotators {
			if st.Annotators[i].Name == name {
				if st.Annotators[i].Private || st.Annotators[i].Participant != "" {
					return nil
				}
				st.Annotators[i].Private = true
			}
		}
		ok, err := s.st.ReplaceStudyIf(r.Context(), prev, st)
		if err != nil || ok {
			return err
		}
		again, found, err := s.st.Study(r.Context(), st.ID)
		if err != nil || !found {
			return err
		}
		st = again
	}
	return fmt.Errorf("study %d is changing too fast", st.ID)
}
