-- (PostgreSQL twin of ../0001_projects.sql)
-- Content projects bound to scopes, and what each published to the instance's rollup.

-- A scope serves the content projects bound to it: an agent names the scope and the project,
-- never a directory. One directory is bound at most once.
CREATE TABLE context_project (
    scope TEXT NOT NULL REFERENCES scope(name),
    project TEXT NOT NULL CHECK (length(project) > 0),
    path TEXT NOT NULL UNIQUE,
    bound_at TEXT NOT NULL,
    bound_by TEXT NOT NULL,
    PRIMARY KEY (scope, project)
);

-- The graph scope each bound project published into the rollup. The rollup's tables hold every
-- published project together; this table says which scope may read which of them, and keeps
-- two bindings from overwriting one graph scope.
CREATE TABLE context_published (
    workspace TEXT NOT NULL,
    project TEXT NOT NULL,
    stream TEXT NOT NULL,
    scope TEXT NOT NULL,
    binding TEXT NOT NULL,
    published_at TEXT NOT NULL,
    PRIMARY KEY (workspace, project, stream),
    FOREIGN KEY (scope, binding) REFERENCES context_project(scope, project) ON DELETE CASCADE
);
