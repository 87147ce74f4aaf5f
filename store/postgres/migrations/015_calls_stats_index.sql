-- Cache statistics (per provider and model: answered and failed calls,
-- tokens, spend) read this index alone instead of every call's row with its
-- request and answer text.
CREATE INDEX IF NOT EXISTS calls_stats ON calls(provider, model, status, input_tokens, output_tokens, cost);
