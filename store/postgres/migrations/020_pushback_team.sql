-- What each process's gate knows of a provider model's unhinted rate
-- limit, so that the processes learn it together, as one would (#26):
-- its streak of bare 429s (0 once learned), whether it has learned the
-- limit, and the window it measured or adopted (0: none). The processes
-- add their streaks, the first one to learn leads the probing of the
-- window and the extra calls, and the others adopt the window it measured.
ALTER TABLE pushback ADD COLUMN IF NOT EXISTS streak INTEGER NOT NULL DEFAULT 0;
ALTER TABLE pushback ADD COLUMN IF NOT EXISTS learned INTEGER NOT NULL DEFAULT 0; -- 0 / 1, as the shared schema keeps flags
ALTER TABLE pushback ADD COLUMN IF NOT EXISTS window_ms BIGINT NOT NULL DEFAULT 0;
-- Its share of the limit (the calls it had admitted when it learned) and
-- the limit of the team's calls together it holds (0: not yet known).
ALTER TABLE pushback ADD COLUMN IF NOT EXISTS limit_n INTEGER NOT NULL DEFAULT 0;
ALTER TABLE pushback ADD COLUMN IF NOT EXISTS team_limit INTEGER NOT NULL DEFAULT 0;
