package web

import (
	"bytes"
	"html/template"

	"crypto/hmac"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/yuin/goldmark"

	"github.com/fallacylab/fallacylab/study"
)

// codebookCookie marks the studies whose codebook an annotator has seen:
// their first visit goes to it before their first item.
const codebookCookie = "fallacylab_codebook"

// seenCodebook reports whether the annotator's browser has shown them the
// study's codebook.
func seenCodebook(r *http.Request, studyID int64) bool {
	c, err := r.Cookie(codebookCookie)
	if err != nil {
		return false
	}
	return strings.Contains(","+c.Value+",", ","+strconv.FormatInt(studyID, 10)+",")
}

// hasCodebook reports whether a study has instructions or a practice round
// to show before the first item.
func hasCodebook(st study.Study) bool { return st.Codebook != "" || len(st.Practice) > 0 }

// codebook is the study's instructions: its codebook's paragraphs, each
// question with its choices and their definitions, and the way on — the
// practice round, if the study has one, or the queue.
func (s *Server) codebook(w http.ResponseWriter, r *http.Request) {
	st, _, ok := s.queue(w, r)
	if !ok {
		return
	}
	seen := strconv.FormatInt(st.ID, 10)
	if c, err := r.Cookie(codebookCookie); err == nil && !seenCodebook(r, st.ID) {
		seen = c.Value + "," + seen
	}
	http.SetCookie(w, &http.Cookie{Name: codebookCookie, Value: seen, Path: "/annotate", HttpOnly: true, SameSite: http.SameSiteStrictMode})
	book, err := codebookHTML(st.Codebook)
	if err != nil {
		s.fail(w, 500, err)
		return
	}
	s.renderStudio(w, "codebook.html", map[string]any{"Study": st, "Codebook": book, "Practice": len(st.Practice)})
}

// codebookHTML is a codebook's Markdown (CommonMark, by goldmark) as HTML.
// Its "<" are escaped first, so HTML written in it shows as text, and
// goldmark's default drops links to javascript: and other unsafe URLs: a
// codebook can format, never script, the annotators' page.
func codebookHTML(md string) (template.HTML, error) {
	var b bytes.Buffer
	if err := goldmark.Convert([]byte(strings.ReplaceAll(md, "<", "&lt;")), &b); err != nil {
		return "", fmt.Errorf("codebook: %w", err)
	}
	return template.HTML(b.String()), nil
}

// practiceView is one practice item, with its feedback once answered.
type practiceView struct {
	N, Next   int
	Total     int
	Item      study.Item
	Questions []questionView
	CSRF      string
	Feedback  []practiceFeedback
}

type practiceFeedback struct {
	Question, Yours, Known string
	Right                  bool
}

// practice is item n of the study's practice round: GET asks it, POST
// tells the annotator the known answer beside theirs. Nothing is stored.
func (s *Server) practice(w http.ResponseWriter, r *http.Request) {
	st, a, ok := s.queue(w, r)
	if !ok {
		return
	}
	n, err := strconv.Atoi(r.PathValue("n"))
	if err != nil || n < 1 || n > len(st.Practice) {
		s.fail(w, 404, fmt.Errorf("the practice round has items 1 to %d", len(st.Practice)))
		return
	}
	it := st.Practice[n-1]
	v := practiceView{N: n, Next: n + 1, Total: len(st.Practice), Item: it, CSRF: csrf(a.Token, st.ID)}
	answers := map[string]string{}
	if r.Method == http.MethodPost {
		if err := r.ParseForm(); err != nil || !hmac.Equal([]byte(r.PostForm.Get("csrf")), []byte(v.CSRF)) {
			s.fail(w, 403, fmt.Errorf("this practice answer did not come from your practice page: open it again"))
			return
		}
		for _, q := range st.Questions {
			answers[q.ID] = formAnswer(q, r.PostForm, "q_"+q.ID)
			if known, ok := it.Known[q.ID]; ok {
				v.Feedback = append(v.Feedback, practiceFeedback{Question: q.Text, Yours: choiceLabel(q, answers[q.ID]), Known: choiceLabel(q, known), Right: answers[q.ID] == known})
			}
		}
	}
	for _, q := range st.Questions {
		v.Questions = append(v.Questions, viewQuestion(st, q, answers[q.ID]))
	}
	s.renderStudio(w, "practice.html", map[string]any{"Study": st, "P": v})
}
