"""Storage: the one SQLite file (schema, migrations, backup), the process lock, and the raw
copies of every source."""
