-- depends: 0002.web
-- Embedded Mem0 keeps its vectors in this database (pgvector). A server without the extension
-- (Debian's PostgreSQL, say) still migrates; only the embedded memory backend then needs it, and
-- says so when it starts. Mem0 Cloud needs nothing here.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') THEN
        CREATE EXTENSION IF NOT EXISTS vector;
    END IF;
END
$$;
