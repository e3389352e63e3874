# docs/scripting.md: the pandas examples print what the page says. Skipped (77) where no
# Python has pandas (Debian: python3-pandas).
GD=$1
for py in python3 /usr/bin/python3; do
  if "$py" -c 'import pandas' 2>/dev/null; then
    exec python3 tests/cli/doc_blocks.py docs/scripting.md python "$GD" "$py"
  fi
done
echo "pandas is not installed (apt-get install python3-pandas): skipped"
exit 77
