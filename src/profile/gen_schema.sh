#!/bin/sh
# Regenerates src/profile/schema_sql.c (the C string of schema.sql). Run from the repo root.
set -e
f=src/profile/schema.sql
{
	echo '/* Generated from schema.sql by: sh src/profile/gen_schema.sh (profile_test checks they match). */'
	echo '#include "profile/schema.h"'
	echo
	echo 'const char gd_profile_schema_sql[] ='
	sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/\t"/' -e 's/$/\\n"/' "$f"
	printf '\t;\n'
} > src/profile/schema_sql.c
