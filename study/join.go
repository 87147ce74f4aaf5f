package study

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// ErrNoPlace is Claim's answer when every annotator's place is taken.
var ErrNoPlace = errors.New("every place of this study is taken")

// participantID is what a crowd platform's participant id may look like
// (Prolific's are 24 hex digits; other platforms' are words of letters,
// digits, - and _).
var participantID = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// Claim gives the participant pid (a crowd platform's id, Prolific's
// PROLIFIC_PID) an annotator's place in s: the one they were given before
// if they come back, else the first free one (no participant, not
// replaced, its private link never opened), which is marked theirs.
// changed says s must be stored again — with a compare-and-swap
// (ReplaceStudyIf), so that two participants never get one place.
func Claim(s *Study, pid string) (a Annotator, changed bool, err error) {
	if !participantID.MatchString(pid) {
		return Annotator{}, false, fmt.Errorf("participant id %q: want letters, digits, - or _ (up to 64), as a crowd platform sends them (PROLIFIC_PID)", pid)
	}
	for _, x := range s.Annotators {
		if x.Participant == pid && x.ReplacedBy == "" {
			return x, false, nil
		}
	}
	for i, x := range s.Annotators {
		if x.Participant == "" && x.ReplacedBy == "" && !x.Private {
			s.Annotators[i].Participant = pid
			return s.Annotators[i], true, nil
		}
	}
	return Annotator{}, false, ErrNoPlace
}

// participants says which places participants took through the shared
// link ("" : none did), and how many are free.
func participants(s Study) string {
	var taken []string
	free := 0
	for _, a := range s.Annotators {
		switch {
		case a.Participant != "":
			taken = append(taken, a.Name+" = "+a.Participant)
		case a.ReplacedBy == "" && !a.Private && s.JoinToken != "":
			free++
		}
	}
	if len(taken) == 0 && s.JoinToken == "" {
		return ""
	}
	if len(taken) == 0 {
		taken = []string{"no place taken yet"}
	}
	return fmt.Sprintf("%s; %d places free (shared link)", strings.Join(taken, ", "), free)
}
