package study

import "context"

// Store keeps studies and their annotations; every store implementation
// offers it (store/storetest checks the semantics).
type Store interface {
	// PutStudy stores a new study of a run and returns its id.
	PutStudy(ctx context.Context, s Study) (int64, error)
	// Studies lists a run's studies (runID 0: every run's), oldest first.
	Studies(ctx context.Context, runID int64) ([]Study, error)
	// Study reads one; ok is false when there is none.
	Study(ctx context.Context, id int64) (Study, bool, error)
	// PutAnnotations stores answers, each in place of the same
	// annotator's earlier answer to the item.
	PutAnnotations(ctx context.Context, anns []Annotation) error
	// Annotations reads every answer of a study.
	Annotations(ctx context.Context, studyID int64) ([]Annotation, error)
}
