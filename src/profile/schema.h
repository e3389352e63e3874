/* The profile database's schema (schema.sql, documented in docs/profile-schema.md).
 * Version 1; later versions only add tables, nullable columns, indexes and meta keys. */
#ifndef GPUDIAG_PROFILE_SCHEMA_H
#define GPUDIAG_PROFILE_SCHEMA_H

#define GD_PROFILE_SCHEMA_VERSION 1

/* The whole of schema.sql: CREATE TABLE/INDEX/VIEW statements for sqlite3_exec. */
extern const char gd_profile_schema_sql[];

#endif
