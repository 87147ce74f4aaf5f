package web

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/fallacylab/fallacylab/study"
)

// JoinLink is a study's shared link as a crowd platform takes it:
// Prolific replaces {{%PROLIFIC_PID%}}, {{%STUDY_ID%}} and {{%SESSION_ID%}}
// with each participant's own.
func JoinLink(base, token string) string {
	return strings.TrimSuffix(base, "/") + "/annotate/join/" + url.PathEscape(token) +
		"?PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}"
}

// join is a study's shared link: /annotate/join/TOKEN?PROLIFIC_PID=ID
// gives the participant a free annotator's place (the same one when they
// come back), signs them in as that annotator and sends them to their
// queue. The participant id is kept with the place; nothing else of the
// query is.
func (s *Server) join(w http.ResponseWriter, r *http.Request) {
	tok := r.PathValue("token")
	pid := r.URL.Query().Get("PROLIFIC_PID")
	if pid == "" {
		pid = r.URL.Query().Get("participant")
	}
	if pid == "" || strings.Contains(pid, "{{%") {
		s.fail(w, 400, fmt.Errorf("this link gives a place to a participant a crowd platform sends: open it from the study's page there (it adds ?PROLIFIC_PID=…), or ask for a private link"))
		return
	}
	if s.st.ReadOnly() {
		s.fail(w, 503, fmt.Errorf("the viewer opened %s read-only: no place can be given", s.st.Path()))
		return
	}
	// One participant, one place: a browser that already holds a place of
	// this study taken through the link goes back to it, whatever id it
	// sends now.
	if c, err := r.Cookie(annotatorCookie); err == nil {
		if st, a, ok := s.byToken(r, c.Value); ok && st.JoinToken != "" && equal(st.JoinToken, tok) && a.Participant != "" && a.Participant != pid {
			http.Redirect(w, r, "/annotate", http.StatusSeeOther)
			return
		}
	}
	var a study.Annotator
	// A place is given with a compare-and-swap on the study: another
	// request, or another viewer on the same store, that changed it first
	// makes this one read it again and choose anew.
	for try := 0; ; try++ {
		st, err := s.studyByJoinToken(r, tok)
		if err != nil {
			s.fail(w, 500, err)
			return
		}
		if st == nil {
			s.fail(w, 404, fmt.Errorf("this link opens no study (it was mistyped, or the study was removed)"))
			return
		}
		prev := cloneStudy(*st)
		got, changed, err := study.Claim(st, pid)
		switch {
		case errors.Is(err, study.ErrNoPlace):
			s.fail(w, 409, fmt.Errorf("every place of this study is taken: thank you, and please return the study on your platform"))
			return
		case err != nil:
			s.fail(w, 400, err)
			return
		}
		if !changed {
			a = got
			break
		}
		ok, err := s.st.ReplaceStudyIf(r.Context(), prev, *st)
		if err != nil {
			s.fail(w, 500, fmt.Errorf("your place was not kept: open the link again: %w", err))
			return
		}
		if ok {
			a = got
			break
		}
		if try == 20 {
			s.fail(w, 503, fmt.Errorf("the study is changing too fast to give you a place: open the link again"))
			return
		}
	}
	http.SetCookie(w, &http.Cookie{Name: annotatorCookie, Value: a.Token, Path: "/annotate", HttpOnly: true, SameSite: http.SameSiteLaxMode})
	http.Redirect(w, r, "/annotate", http.StatusSeeOther)
}

// studyByJoinToken is the study whose shared link is tok (nil: none).
func (s *Server) studyByJoinToken(r *http.Request, tok string) (*study.Study, error) {
	list, err := s.st.Studies(r.Context(), 0)
	if err != nil {
		return nil, err
	}
	for i := range list {
		if list[i].JoinToken != "" && equal(list[i].JoinToken, tok) {
			return &list[i], nil
		}
	}
	return nil, nil
}

// cloneStudy copies a study deeply enough to keep it as read while its
// annotators are changed.
func cloneStudy(st study.Study) study.Study {
	st.Annotators = append([]study.Annotator(nil), st.Annotators...)
	return st
}
