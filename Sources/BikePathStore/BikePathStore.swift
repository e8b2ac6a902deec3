// The SQLite buffer lives in this module.
