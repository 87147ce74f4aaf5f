-- A run's records version: bumped by every write of its records, so that
-- an analysis made from them (a report, cached outside the store) knows
-- when it is stale.
ALTER TABLE runs ADD COLUMN records_version INTEGER NOT NULL DEFAULT 0;
