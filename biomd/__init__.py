"""biomd, the personal biographer: one package. The base (settings, endpoints, errors, redact,
fold, plural) sits at its top; the layers below it, top to bottom: frontends, app, biographer,
then retrieval, ingest and models, then storage."""
