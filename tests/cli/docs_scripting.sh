# docs/scripting.md: every sqlite3 and gpudiag example prints what the page says it prints.
GD=$1
command -v sqlite3 >/dev/null || { echo "sqlite3 is not installed: skipped"; exit 77; }
exec python3 tests/cli/doc_blocks.py docs/scripting.md sh "$GD"
