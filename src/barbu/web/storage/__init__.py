"""Storage of tables, sheets and profiles: one SQL layer run by SQLite and PostgreSQL, and its migrations."""
