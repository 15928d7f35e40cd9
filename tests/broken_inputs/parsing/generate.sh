#!/usr/bin/env bash
# Inputs too large (or too special) to keep in git, made in the corpus's scratch folder.
set -eu  # no pipefail: `yes | head` ends `yes` by SIGPIPE
scenario_head='{"chip": "small", "kernel": "vector_add", "blocks": 1,'

# 100,000 levels of nesting: one message, no quadratic memory.
{ printf '{"chip": "small", "nested": '; head -c 100000 /dev/zero | tr '\0' '['; } >nested_arrays.json
{ printf '{"chip": "small", "nested": '; yes '{"k":' | head -n 100000 | tr -d '\n'; } >nested_objects.json
# A chip file nested 100,000 levels, named by a scenario.
{ head -c 100000 /dev/zero | tr '\0' '['; head -c 100000 /dev/zero | tr '\0' ']'; } >nested_chip.json
printf '{"chip": "nested_chip.json", "kernel": "vector_add", "blocks": 1}\n' >uses_nested_chip.json

# 4,000,000 bad values in 12 MB: 20 lines and a count, not 4 million lines.
{ printf '%s "skew": {"offsets": [' "$scenario_head"; yes -- '-1,' | head -n 3999999 | tr -d '\n'; printf -- '-1]}}\n'; } >many_bad_values.json
# The same flood in a chip file: a thousand unknown keys named by a scenario.
{ printf '{'; for i in $(seq 1 1000); do printf '"k%d": 1, ' "$i"; done; printf '"name": "x"}\n'; } >many_bad_chip.json
printf '{"chip": "many_bad_chip.json", "kernel": "vector_add", "blocks": 1}\n' >uses_many_bad_chip.json

# 20 MB: refused before reading.
{ printf '%s "description": "' "$scenario_head"; head -c 20971520 /dev/zero | tr '\0' 'x'; printf '"}\n'; } >huge.json
printf '{"chip": "huge.json", "kernel": "vector_add", "blocks": 1}\n' >uses_huge_chip.json
ln -sf huge.json huge_link.json

# A FIFO nobody writes to: refused at once instead of waiting for a writer.
rm -f fifo.json && mkfifo fifo.json
printf '{"chip": "fifo.json", "kernel": "vector_add", "blocks": 1}\n' >uses_fifo_chip.json
mkdir -p a_directory.json
ln -sf /dev/zero zero_link.json
printf '{"chip": "zero_link.json", "kernel": "vector_add", "blocks": 1}\n' >uses_zero_chip.json
