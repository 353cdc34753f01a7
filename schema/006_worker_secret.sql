-- 006_worker_secret: each registration gets its own secret (issue 11, defect 1). The worker receives it once,
-- in the registration's answer; only its SHA-256 is kept. Every later worker call names the worker and presents
-- the secret, so one worker token cannot act as another worker. Workers registered before this migration have
-- no secret: their calls are refused and they register again.
ALTER TABLE workers ADD COLUMN secret_hash text CHECK (secret_hash ~ '^[0-9a-f]{64}$');
