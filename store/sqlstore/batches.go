package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/fallacylab/fallacylab/store"
)

// SaveBatch records a submitted batch and its items in one transaction.
func (s *Store) SaveBatch(ctx context.Context, b store.Batch) error {
	return s.saveBatch(ctx, b, store.BatchSubmitted)
}

// SaveBatchIntent records a batch about to be submitted, under the client's
// token, with its items (status "submitting").
func (s *Store) SaveBatchIntent(ctx context.Context, token string, b store.Batch) error {
	b.ID = token
	return s.saveBatch(ctx, b, store.BatchSubmitting)
}

// ConfirmBatch gives a submitting batch the id the provider returned.
func (s *Store) ConfirmBatch(ctx context.Context, token, id string) error {
	return s.write(ctx, func(tx Tx) error {
		if _, err := tx.Exec(`INSERT INTO batches (id, provider, status, created_at, updated_at)
			SELECT ?, provider, ?, created_at, ? FROM batches WHERE id = ? AND status = ?`, id, store.BatchSubmitted, now(), token, store.BatchSubmitting); err != nil {
			return fmt.Errorf("confirm batch %s as %s: %w", token, id, err)
		}
		if _, err := tx.Exec(`UPDATE batch_items SET batch_id = ? WHERE batch_id = ?`, id, token); err != nil {
			return fmt.Errorf("confirm batch %s items: %w", token, err)
		}
		_, err := tx.Exec(`DELETE FROM batches WHERE id = ?`, token)
		return err
	})
}

// DropBatch forgets a batch that never reached the provider.
func (s *Store) DropBatch(ctx context.Context, id string) error {
	return s.write(ctx, func(tx Tx) error {
		if _, err := tx.Exec(`DELETE FROM batch_items WHERE batch_id = ?`, id); err != nil {
			return err
		}
		_, err := tx.Exec(`DELETE FROM batches WHERE id = ?`, id)
		return err
	})
}

// UnconfirmedBatches lists a provider's batches whose submission outcome is
// unknown (status "submitting").
func (s *Store) UnconfirmedBatches(ctx context.Context, provider string) ([]store.Batch, error) {
	return s.batchesWith(ctx, provider, store.BatchSubmitting)
}

func (s *Store) saveBatch(ctx context.Context, b store.Batch, status string) error {
	return s.write(ctx, func(tx Tx) error {
		if _, err := tx.Exec(`INSERT INTO batches (id, provider, status, created_at, updated_at) VALUES (?,?,?,?,?)`,
			b.ID, b.Provider, status, now(), now()); err != nil {
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
	return s.write(ctx, func(tx Tx) error {
		_, err := tx.Exec(`UPDATE batches SET status = ?, updated_at = ? WHERE id = ?`, status, now(), id)
		return err
	})
}

// PendingBatches lists submitted batches of a provider that were not ingested yet.
func (s *Store) PendingBatches(ctx context.Context, provider string) ([]store.Batch, error) {
	return s.batchesWith(ctx, provider, store.BatchSubmitted)
}

func (s *Store) batchesWith(ctx context.Context, provider, status string) ([]store.Batch, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, provider, status FROM batches WHERE provider = ? AND status = ? ORDER BY created_at`,
		provider, status)
	if err != nil {
		return nil, fmt.Errorf("pending batches: %w", err)
	}
	var out []store.Batch
	for rows.Next() {
		var b store.Batch
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

func (s *Store) batchItems(ctx context.Context, id string) ([]store.BatchItem, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT key, namespace, model, request FROM batch_items WHERE batch_id = ?`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []store.BatchItem
	for rows.Next() {
		var it store.BatchItem
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
		WHERE bi.key = ? AND b.status IN (?, ?)`, key, store.BatchSubmitted, store.BatchSubmitting).Scan(&n)
	return n > 0, err
}
