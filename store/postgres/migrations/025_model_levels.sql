-- The concurrency each provider model's calls last held (engine.Levels):
-- a run's model starts at it rather than ramping from the start again —
-- a team's workers started with a run, at the level the team last held.
-- scope is provider:model[@endpoint]; at, when it was saved (Unix ms).
CREATE TABLE IF NOT EXISTS model_levels (
    scope TEXT PRIMARY KEY,
    level INTEGER NOT NULL,
    at    BIGINT NOT NULL
);
