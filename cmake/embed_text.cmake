# cmake -DIN=file -DOUT=header -DNAME=symbol -P embed_text.cmake
# Writes OUT holding `static const char NAME[] = "...";` with IN's text (PTX here), one string
# literal per line, so a C file can include a build product without any tool beyond CMake.
file(READ "${IN}" text)
string(REPLACE "\\" "\\\\" text "${text}")
string(REPLACE "\"" "\\\"" text "${text}")
string(REPLACE "\t" "\\t" text "${text}")
string(REPLACE "\n" "\\n\"\n\t\"" text "${text}")
file(WRITE "${OUT}.tmp" "/* generated from ${IN} by cmake/embed_text.cmake: do not edit */\nstatic const char ${NAME}[] =\n\t\"${text}\";\n")
file(RENAME "${OUT}.tmp" "${OUT}")
