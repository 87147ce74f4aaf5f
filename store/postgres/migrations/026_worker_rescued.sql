-- Whether a silent worker's jobs were returned to their queues (Rescue):
-- a worker's heartbeat is its row alone, no longer an update of River's
-- job table, so a worker that finds another silent rescues its jobs once,
-- through River's own rescue (the driver's JobRescueMany), and then knows
-- it is done. A worker that beats again is not rescued any more.
ALTER TABLE workers ADD COLUMN IF NOT EXISTS rescued BOOLEAN NOT NULL DEFAULT false;
