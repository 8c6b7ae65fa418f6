-- depends: 0002.web
-- Embedded Mem0 keeps its vectors in this database (pgvector). On an external server the
-- application role must be allowed to create the extension, or an administrator creates it first.
CREATE EXTENSION IF NOT EXISTS vector;
