-- Claims on call keys (package sqlstore, claims.go): a process claims a key
-- before it pays for the call, with a lease it renews while the call is in
-- flight; another process that needs the same key waits for the answer, or
-- takes the claim over once the lease has run out. The row goes when the
-- call's outcome is stored.
CREATE TABLE call_claims (
    key     TEXT PRIMARY KEY,
    owner   TEXT NOT NULL,
    expires BIGINT NOT NULL -- Unix milliseconds
);
CREATE INDEX call_claims_owner ON call_claims(owner);
