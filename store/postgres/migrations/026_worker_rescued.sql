-- Whether a silent worker's jobs were returned to their queues (Rescue):
-- a worker's heartbeat is its row alone, no longer an update of River's
-- job table, so a worker that finds another silent rescues its jobs once,
-- through River's own rescue (the driver's JobRescueMany), and then knows
-- it is done. A worker that beats again is not rescued any more.
ALTER TABLE workers ADD COLUMN IF NOT EXISTS rescued BOOLEAN NOT NULL DEFAULT false;
-- The team protocol a worker speaks: 1, its jobs kept its own by renewing
-- River's attempted_at at each heartbeat (fallacylab before this
-- migration, whose rows leave it at the default); 2, by its row's
-- heartbeat alone. A worker of 1 returns to the queue the jobs of a
-- worker of 2 that run past the lease, so a worker of 2 that finds one
-- of 1 alive says so.
ALTER TABLE workers ADD COLUMN IF NOT EXISTS protocol INTEGER NOT NULL DEFAULT 1;
