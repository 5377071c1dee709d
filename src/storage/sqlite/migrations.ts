// Versioned schema migrations for SQLite. Append only: never edit a migration
// that has shipped; add a new version instead.
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const migrations: Migration[] = [
  {
    version: 1,
    name: "keys, tasks, usage, files",
    sql: `
      CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        hash TEXT NOT NULL UNIQUE,
        prefix TEXT NOT NULL,
        admin INTEGER NOT NULL DEFAULT 0,
        formats TEXT NOT NULL DEFAULT '[]',
        models TEXT NOT NULL DEFAULT '[]',
        budget REAL NOT NULL DEFAULT 0,
        spent REAL NOT NULL DEFAULT 0,
        limits TEXT NOT NULL DEFAULT '{}',
        create_time INTEGER NOT NULL,
        expire_time INTEGER,
        revoke_time INTEGER
      );
      CREATE TABLE tasks (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        status TEXT NOT NULL,
        owner_key_id TEXT,
        data TEXT NOT NULL,
        create_time INTEGER NOT NULL,
        update_time INTEGER NOT NULL,
        version INTEGER NOT NULL DEFAULT 1
      );
      CREATE INDEX tasks_kind_status ON tasks (kind, status);
      CREATE INDEX tasks_kind_create ON tasks (kind, create_time);
      CREATE TABLE usage_records (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        time INTEGER NOT NULL,
        key_id TEXT NOT NULL,
        format TEXT NOT NULL,
        model TEXT NOT NULL,
        channel TEXT NOT NULL,
        input_tokens INTEGER NOT NULL DEFAULT 0,
        output_tokens INTEGER NOT NULL DEFAULT 0,
        images INTEGER NOT NULL DEFAULT 0,
        seconds REAL NOT NULL DEFAULT 0,
        credits REAL NOT NULL DEFAULT 0,
        status TEXT NOT NULL,
        latency_ms INTEGER NOT NULL DEFAULT 0,
        request_id TEXT NOT NULL DEFAULT ''
      );
      CREATE INDEX usage_key_time ON usage_records (key_id, time);
      CREATE TABLE files (
        id TEXT PRIMARY KEY,
        mime_type TEXT NOT NULL,
        size INTEGER NOT NULL,
        create_time INTEGER NOT NULL,
        expire_time INTEGER,
        owner_key_id TEXT,
        kind TEXT NOT NULL
      );
      CREATE INDEX files_expire ON files (expire_time);
    `,
  },
  {
    version: 2,
    name: "cached contents",
    sql: `
      CREATE TABLE cached_contents (
        id TEXT PRIMARY KEY,
        owner_key_id TEXT NOT NULL,
        model TEXT NOT NULL,
        display_name TEXT NOT NULL DEFAULT '',
        content BLOB NOT NULL,
        total_tokens INTEGER NOT NULL DEFAULT 0,
        create_time INTEGER NOT NULL,
        update_time INTEGER NOT NULL,
        expire_time INTEGER NOT NULL
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
        id TEXT PRIMARY KEY,
        task_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        url TEXT NOT NULL,
        body TEXT NOT NULL,
        status TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_time INTEGER NOT NULL,
        last_error TEXT,
        create_time INTEGER NOT NULL,
        update_time INTEGER NOT NULL
      );
      CREATE INDEX task_outbox_pending ON task_outbox (status, task_id, seq);
      CREATE INDEX task_outbox_settled ON task_outbox (status, update_time);
      CREATE TABLE task_accounts (
        kind TEXT NOT NULL,
        id TEXT NOT NULL,
        data TEXT NOT NULL,
        update_time INTEGER NOT NULL,
        PRIMARY KEY (kind, id)
      );
    `,
  },
  {
    version: 4,
    name: "task leases and callback claims",
    sql: `
      ALTER TABLE tasks ADD COLUMN queue TEXT NOT NULL DEFAULT '';
      ALTER TABLE tasks ADD COLUMN queue_order INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE tasks ADD COLUMN lease_owner TEXT;
      ALTER TABLE tasks ADD COLUMN lease_until INTEGER NOT NULL DEFAULT 0;
      UPDATE tasks SET queue = COALESCE(CASE WHEN json_valid(data) THEN json_extract(data, '$.run.queue') END, '');
      UPDATE tasks SET queue_order = o.n FROM (
        SELECT id, row_number() OVER (ORDER BY COALESCE(CASE WHEN json_valid(data) THEN json_extract(data, '$.run.queueTime') END, create_time), rowid) AS n FROM tasks
      ) AS o WHERE o.id = tasks.id;
      CREATE INDEX tasks_queue_line ON tasks (queue, status, queue_order);
      CREATE INDEX tasks_queue_lease ON tasks (queue, lease_until);
      CREATE INDEX tasks_queue_order ON tasks (queue_order);
      CREATE INDEX tasks_lease_owner ON tasks (lease_owner) WHERE lease_owner IS NOT NULL;
      ALTER TABLE task_outbox ADD COLUMN claim_owner TEXT;
      ALTER TABLE task_outbox ADD COLUMN claim_until INTEGER NOT NULL DEFAULT 0;
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
        id TEXT PRIMARY KEY,
        owner_key_id TEXT NOT NULL,
        model TEXT NOT NULL,
        status TEXT NOT NULL,
        previous_response_id TEXT NOT NULL DEFAULT '',
        create_time INTEGER NOT NULL,
        expire_time INTEGER NOT NULL,
        response TEXT NOT NULL,
        input TEXT NOT NULL,
        context TEXT NOT NULL
      );
      CREATE INDEX stored_responses_expire ON stored_responses (expire_time);
    `,
  },
];
