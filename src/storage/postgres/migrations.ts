// Versioned schema migrations for PostgreSQL. Append only: never edit a
// migration that has shipped; add a new version instead. Versions follow the
// SQLite list (src/storage/sqlite/migrations.ts) so a change lands as the same
// version number in both. Epoch-ms columns are BIGINT, credits DOUBLE PRECISION,
// JSON TEXT (JSON.stringify escapes NUL, which jsonb would reject),
// ids COLLATE "C" so they sort bytewise as in SQLite, whatever the database locale.
import type { Migration } from "../sqlite/migrations.js";

export type { Migration };

export const migrations: Migration[] = [
  {
    version: 1,
    name: "keys, tasks, usage, files",
    sql: `
      CREATE TABLE api_keys (
        id TEXT COLLATE "C" PRIMARY KEY,
        name TEXT NOT NULL,
        hash TEXT NOT NULL UNIQUE,
        prefix TEXT NOT NULL,
        admin BOOLEAN NOT NULL DEFAULT FALSE,
        formats TEXT NOT NULL DEFAULT '[]',
        models TEXT NOT NULL DEFAULT '[]',
        budget DOUBLE PRECISION NOT NULL DEFAULT 0,
        spent DOUBLE PRECISION NOT NULL DEFAULT 0,
        limits TEXT NOT NULL DEFAULT '{}',
        create_time BIGINT NOT NULL,
        expire_time BIGINT,
        revoke_time BIGINT
      );
      CREATE TABLE tasks (
        id TEXT COLLATE "C" PRIMARY KEY,
        kind TEXT NOT NULL,
        status TEXT NOT NULL,
        owner_key_id TEXT,
        data TEXT NOT NULL,
        create_time BIGINT NOT NULL,
        update_time BIGINT NOT NULL,
        version INTEGER NOT NULL DEFAULT 1
      );
      CREATE INDEX tasks_kind_status ON tasks (kind, status, create_time);
      CREATE INDEX tasks_kind_create ON tasks (kind, create_time, id);
      CREATE TABLE usage_records (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        time BIGINT NOT NULL,
        key_id TEXT NOT NULL,
        format TEXT NOT NULL,
        model TEXT NOT NULL,
        channel TEXT NOT NULL,
        input_tokens BIGINT NOT NULL DEFAULT 0,
        output_tokens BIGINT NOT NULL DEFAULT 0,
        images BIGINT NOT NULL DEFAULT 0,
        seconds DOUBLE PRECISION NOT NULL DEFAULT 0,
        credits DOUBLE PRECISION NOT NULL DEFAULT 0,
        status TEXT NOT NULL,
        latency_ms BIGINT NOT NULL DEFAULT 0,
        request_id TEXT NOT NULL DEFAULT ''
      );
      CREATE INDEX usage_key_time ON usage_records (key_id, time);
      CREATE INDEX usage_time ON usage_records (time);
      CREATE TABLE files (
        id TEXT COLLATE "C" PRIMARY KEY,
        mime_type TEXT NOT NULL,
        size BIGINT NOT NULL,
        create_time BIGINT NOT NULL,
        expire_time BIGINT,
        owner_key_id TEXT,
        kind TEXT NOT NULL
      );
      CREATE INDEX files_expire ON files (expire_time) WHERE expire_time IS NOT NULL;
    `,
  },
  {
    version: 2,
    name: "cached contents",
    sql: `
      CREATE TABLE cached_contents (
        id TEXT COLLATE "C" PRIMARY KEY,
        owner_key_id TEXT NOT NULL,
        model TEXT NOT NULL,
        display_name TEXT NOT NULL DEFAULT '',
        content BYTEA NOT NULL,
        total_tokens BIGINT NOT NULL DEFAULT 0,
        create_time BIGINT NOT NULL,
        update_time BIGINT NOT NULL,
        expire_time BIGINT NOT NULL
      );
      CREATE INDEX cached_contents_owner ON cached_contents (owner_key_id, id);
      CREATE INDEX cached_contents_expire ON cached_contents (expire_time);
    `,
  },
  {
    version: 3,
    name: "task outbox and task accounts",
    sql: `
      CREATE TABLE task_outbox (
        id TEXT COLLATE "C" PRIMARY KEY,
        task_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        url TEXT NOT NULL,
        body TEXT NOT NULL,
        status TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_time BIGINT NOT NULL,
        last_error TEXT,
        create_time BIGINT NOT NULL,
        update_time BIGINT NOT NULL
      );
      CREATE INDEX task_outbox_pending ON task_outbox (task_id, seq) WHERE status = 'pending';
      CREATE INDEX task_outbox_due ON task_outbox (next_attempt_time, seq) WHERE status = 'pending';
      CREATE INDEX task_outbox_settled ON task_outbox (status, update_time);
      CREATE TABLE task_accounts (
        kind TEXT NOT NULL,
        id TEXT COLLATE "C" NOT NULL,
        data TEXT NOT NULL,
        update_time BIGINT NOT NULL,
        PRIMARY KEY (kind, id)
      );
    `,
  },
  {
    version: 4,
    name: "task leases and callback claims",
    sql: `
      ALTER TABLE tasks ADD COLUMN queue TEXT NOT NULL DEFAULT '';
      ALTER TABLE tasks ADD COLUMN queue_order BIGINT NOT NULL DEFAULT 0;
      ALTER TABLE tasks ADD COLUMN lease_owner TEXT;
      ALTER TABLE tasks ADD COLUMN lease_until BIGINT NOT NULL DEFAULT 0;
      UPDATE tasks SET queue = COALESCE(data::json -> 'run' ->> 'queue', '');
      UPDATE tasks t SET queue_order = o.n FROM (
        SELECT id, row_number() OVER (ORDER BY COALESCE((data::json -> 'run' ->> 'queueTime')::double precision, create_time), create_time, id) AS n FROM tasks
      ) o WHERE o.id = t.id;
      CREATE SEQUENCE tasks_queue_order;
      SELECT setval('tasks_queue_order', COALESCE((SELECT max(queue_order) FROM tasks), 0) + 1, false);
      ALTER TABLE tasks ALTER COLUMN queue_order SET DEFAULT nextval('tasks_queue_order');
      CREATE INDEX tasks_queue_line ON tasks (queue, status, queue_order);
      CREATE INDEX tasks_queue_lease ON tasks (queue, lease_until);
      CREATE INDEX tasks_lease_owner ON tasks (lease_owner) WHERE lease_owner IS NOT NULL;
      ALTER TABLE task_outbox ADD COLUMN claim_owner TEXT;
      ALTER TABLE task_outbox ADD COLUMN claim_until BIGINT NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 5,
    name: "file names, and a key's files by age",
    sql: `
      ALTER TABLE files ADD COLUMN filename TEXT;
      CREATE INDEX files_owner_age ON files (kind, owner_key_id, create_time, id);
    `,
  },
  {
    version: 6,
    name: "stored responses",
    sql: `
      CREATE TABLE stored_responses (
        id TEXT COLLATE "C" PRIMARY KEY,
        owner_key_id TEXT NOT NULL,
        model TEXT NOT NULL,
        status TEXT NOT NULL,
        previous_response_id TEXT NOT NULL DEFAULT '',
        create_time BIGINT NOT NULL,
        expire_time BIGINT NOT NULL,
        response TEXT NOT NULL,
        input TEXT NOT NULL,
        context TEXT NOT NULL
      );
      CREATE INDEX stored_responses_expire ON stored_responses (expire_time);
    `,
  },
];
