// Ingest module.
