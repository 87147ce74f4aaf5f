package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
)

// Batch statuses in the store.
const (
	BatchSubmitted = "submitted"
	BatchIngested  = "ingested"
	BatchFailed    = "failed"
)

// BatchItem is one job inside a provider batch.
type BatchItem struct {
	Key       string
	Namespace string
	Model     string
	Request   json.RawMessage
}

// Batch is a provider batch known to the store.
type Batch struct {
	ID       string
	Provider string
	Status   string
	Items    []BatchItem
}

// SaveBatch records a submitted batch and its items in one transaction.
func (s *Store) SaveBatch(ctx context.Context, b Batch) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.Exec(`INSERT INTO batches (id, provider, status, created_at, updated_at) VALUES (?,?,?,?,?)`,
			b.ID, b.Provider, BatchSubmitted, now(), now()); err != nil {
			return fmt.Errorf("save batch %s: %w", b.ID, err)
		}
		for _, it := range b.Items {
			if _, err := tx.Exec(`INSERT INTO batch_items (batch_id, key, namespace, model, request) VALUES (?,?,?,?,?)`,
				b.ID, it.Key, it.Namespace, it.Model, string(it.Request)); err != nil {
				return fmt.Errorf("save batch %s item %s: %w", b.ID, it.Key, err)
			}
		}
		return nil
	})
}

// SetBatchStatus updates a batch's status.
func (s *Store) SetBatchStatus(ctx context.Context, id, status string) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.Exec(`UPDATE batches SET status = ?, updated_at = ? WHERE id = ?`, status, now(), id)
		return err
	})
}

// PendingBatches lists submitted batches of a provider that were not ingested yet.
func (s *Store) PendingBatches(ctx context.Context, provider string) ([]Batch, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, provider, status FROM batches WHERE provider = ? AND status = ? ORDER BY created_at`,
		provider, BatchSubmitted)
	if err != nil {
		return nil, fmt.Errorf("pending batches: %w", err)
	}
	var out []Batch
	for rows.Next() {
		var b Batch
		if err := rows.Scan(&b.ID, &b.Provider, &b.Status); err != nil {
			rows.Close()
			return nil, err
		}
		out = append(out, b)
	}
	rows.Close()
	for i := range out {
		items, err := s.batchItems(ctx, out[i].ID)
		if err != nil {
			return nil, err
		}
		out[i].Items = items
	}
	return out, nil
}

func (s *Store) batchItems(ctx context.Context, id string) ([]BatchItem, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT key, namespace, model, request FROM batch_items WHERE batch_id = ?`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []BatchItem
	for rows.Next() {
		var it BatchItem
		var req string
		if err := rows.Scan(&it.Key, &it.Namespace, &it.Model, &req); err != nil {
			return nil, err
		}
		it.Request = json.RawMessage(req)
		out = append(out, it)
	}
	return out, rows.Err()
}

// InPendingBatch reports whether key belongs to a batch that is still pending.
func (s *Store) InPendingBatch(ctx context.Context, key string) (bool, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM batch_items bi JOIN batches b ON b.id = bi.batch_id
		WHERE bi.key = ? AND b.status = ?`, key, BatchSubmitted).Scan(&n)
	return n > 0, err
}
