"""Storage, the only place with SQL: the one SQLite file with one owner module per table
(biomd/storage/store.py lists them), migrations, backup, the process lock and the raw files."""
