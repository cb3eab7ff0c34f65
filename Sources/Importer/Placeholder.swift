// Importer module.
