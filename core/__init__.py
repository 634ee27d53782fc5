"""biomd's engine. The app (engine, assistant, jobs, CLI) and the base (settings, endpoints,
errors, redact, fold, plural) live here; each layer below it is a package: biographer, retrieval,
ingest, models, storage."""
